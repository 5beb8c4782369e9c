// How long a run waits for an endpoint that answers nothing at all. Each request has its own
// deadline and its retries; without a bound across them, a silent endpoint costs attempts ×
// deadline (5 × 60 s) before the run hears of it. The budget counts from the last answer of any
// request (an error answer too: the endpoint is alive), so a busy run is never cut short.
import { CloudforetApiError } from '../errors.ts';

export const SILENCE = 'CLOUDFORET_SILENT';

export class SilenceBudget {
  private lastHeard: number | undefined;
  /** Requests sent whose answer has not begun (headers) nor failed, and since when one has been. */
  private waiting = 0;
  private waitingSince = 0;

  constructor(
    readonly budgetMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** A request starts: the silence is counted from the first one if nothing was heard yet. */
  asking(): void {
    this.lastHeard ??= this.now();
    if (this.waiting === 0) this.waitingSince = this.now();
    this.waiting += 1;
  }

  /** A request's headers came, or it failed: it waits no more. */
  settled(): void {
    this.waiting = Math.max(0, this.waiting - 1);
  }

  /** How long a request has been waiting with no answer from the endpoint: 0 while none waits. */
  waitingMs(): number {
    if (this.waiting === 0) return 0;
    return this.now() - Math.max(this.waitingSince, this.lastHeard ?? this.waitingSince);
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
