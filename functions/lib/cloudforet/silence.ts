// How long a run waits for an endpoint that answers nothing at all. Each request has its own
// deadline and its retries; without a bound across them, a silent endpoint costs attempts ×
// deadline (5 × 60 s) before the run hears of it. The budget counts from the last answer of any
// request (an error answer too: the endpoint is alive), so a busy run is never cut short.
import { CloudforetApiError } from '../errors.ts';

export const SILENCE = 'CLOUDFORET_SILENT';

export class SilenceBudget {
  private lastHeard: number | undefined;

  constructor(
    readonly budgetMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** A request starts: the silence is counted from the first one if nothing was heard yet. */
  asking(): void {
    this.lastHeard ??= this.now();
  }

  /** The endpoint answered something (headers of any status). */
  heard(): void {
    this.lastHeard = this.now();
  }

  /** Milliseconds since the endpoint last answered anything. */
  silentMs(): number {
    return this.now() - (this.lastHeard ?? this.now());
  }

  /**
   * Whether another attempt may start: only while the silence is shorter than the budget, so a
   * run ends at most one request deadline past it. A connect timeout (10 s) is retried a few
   * times; a request that waited out a whole default deadline (60 s) is not.
   */
  allowsAttempt(): boolean {
    return this.silentMs() < this.budgetMs;
  }

  /** The error a run ends with: the real figures, and the two settings that change them. */
  exhausted(error: CloudforetApiError, endpoint: string, attempts: number, deadlineMs: number) {
    const tries = attempts === 1 ? '1 attempt' : `${attempts} attempts`;
    return new CloudforetApiError(
      {
        code: SILENCE,
        path: error.path,
        retryable: true,
        message:
          `cloudforet: ${endpoint} answered nothing for ${seconds(this.silentMs())} s ` +
          `(${tries} of up to ${seconds(deadlineMs)} s for ${error.path}; no other request was answered meanwhile): ` +
          'the endpoint may be down, unreachable from here, or too slow; the run gives up after ' +
          `${seconds(this.budgetMs)} s of silence (--give-up-after; each request's limit is --timeout)`,
      },
      { cause: error },
    );
  }
}

const seconds = (ms: number) => Math.round(ms / 100) / 10;
