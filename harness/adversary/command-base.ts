// What every command of the adversary is: fast-check's async command on the Adversary, always
// applicable (each checks the archive itself), printed as a replayable line.
import type fc from 'fast-check';
import type { Adversary } from './model.ts';

/** What fast-check's model holds: nothing the real side does not check itself. */
export type Model = Record<string, never>;
export type Cmd = fc.AsyncCommand<Model, Adversary>;

/** Data sources print by index: their ids follow the world's seed. */
export const ds = (i: number) => `ds#${i}`;

export abstract class Base implements Cmd {
  check(): boolean {
    return true;
  }
  abstract run(m: Model, a: Adversary): Promise<void>;
  abstract toString(): string;
}
