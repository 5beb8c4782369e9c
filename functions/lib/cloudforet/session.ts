// Load the credential and build a client for it: shared by the functions and the CLI.
import type { Dispatcher } from 'undici';
import type { Logger } from '../log.ts';
import { scopeLabel } from '../scope.ts';
import { CloudforetClient, createDispatcher } from './client.ts';
import type { CloudforetCredential, SecretSource } from './secret.ts';
import { SilenceBudget } from './silence.ts';

export interface SessionOptions {
  readonly endpoint: string;
  readonly secrets: SecretSource;
  readonly log: Logger;
  /** The deadline of each request, headers and body together. */
  readonly requestTimeoutMs?: number;
  /** The longest answer body taken, in bytes. */
  readonly maxAnswerBytes?: number;
  /** false: a request that got no answer in time is not retried (a probe). */
  readonly retryNoAnswer?: boolean;
  /** Give up once the endpoint has answered nothing for this long (default: no such bound). */
  readonly silenceBudgetMs?: number;
  readonly dispatcher?: Dispatcher;
  /** Aborts every request of the session (the CLI's SIGINT and SIGTERM). */
  readonly signal?: AbortSignal;
}

export interface CloudforetSession {
  readonly client: CloudforetClient;
  readonly credential: CloudforetCredential;
  /** What this app can see: the whole domain, or one workspace. */
  readonly scope: string;
}

let sharedDispatcher: Dispatcher | undefined;

export async function openSession(opts: SessionOptions): Promise<CloudforetSession> {
  const credential = await opts.secrets.load();
  opts.log.addSecret(credential.token);
  sharedDispatcher ??= createDispatcher();
  const client = new CloudforetClient({
    endpoint: opts.endpoint,
    token: credential.token,
    dispatcher: opts.dispatcher ?? sharedDispatcher,
    credentialSource: credential.source,
    credentialDomainId: credential.domainId,
    requestTimeoutMs: opts.requestTimeoutMs,
    maxAnswerBytes: opts.maxAnswerBytes,
    retryNoAnswer: opts.retryNoAnswer,
    silence: opts.silenceBudgetMs === undefined ? undefined : new SilenceBudget(opts.silenceBudgetMs),
    log: opts.log,
    signal: opts.signal,
  });
  return { client, credential, scope: scopeLabel(credential) };
}
