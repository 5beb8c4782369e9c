// What a long run reports as it goes (the CLI's progress line).
export interface RunProgress {
  readonly unitsDone: number;
  readonly unitsTotal: number;
  readonly rows: number;
  readonly elapsedMs: number;
  /** The work after the units, once they are done: e.g. 'unified costs', 'FOCUS rows'. */
  readonly phase?: string;
  /** What the units are called ('objects': the move into a tenant); 'units' when absent. */
  readonly noun?: string;
  /** Said in place of the rows and their rate (the move: megabytes and the phase). */
  readonly amount?: string;
}
