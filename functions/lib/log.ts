// One structured logger: a JSON line per event (or a human line, for a terminal), keys appended
// per unit of work. Every line passes the one redactor (redact/redact.ts) as a last line of defence.
import { redact, registerSecret } from './redact/redact.ts';

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';
/** json: one JSON object per line (Lambda, CloudWatch); text: `warn: message (key=value …)`. */
export type LogFormat = 'json' | 'text';
export type LogFields = Record<string, unknown>;

export interface Logger {
  debug(message: string, fields?: LogFields): void;
  info(message: string, fields?: LogFields): void;
  warn(message: string, fields?: LogFields): void;
  error(message: string, fields?: LogFields): void;
  child(fields: LogFields): Logger;
  /** Never print this value again: registers it with the process's one redactor (redact/redact.ts). */
  addSecret(secret: string): void;
}

const rank: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

export interface LoggerOptions {
  level?: LogLevel;
  write?: (line: string) => void;
  fields?: LogFields;
  format?: LogFormat;
}

export function createLogger(options: LoggerOptions = {}): Logger {
  const write = options.write ?? ((line: string) => process.stdout.write(`${line}\n`));
  const render = options.format === 'text' ? textLine : jsonLine;
  return build(rank[options.level ?? 'info'], write, render, options.fields ?? {});
}

export const LOG_LEVELS = Object.keys(rank) as LogLevel[];

/** The one check of LOG_LEVEL, for the Lambda's config and the CLI alike; undefined when fine. */
export function logLevelProblem(value: string | undefined): string | undefined {
  const level = value?.trim();
  if (!level || level in rank) return undefined;
  return `LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')} (got '${level}')`;
}

export function parseLogLevel(value: string | undefined): LogLevel {
  return value !== undefined && value in rank ? (value as LogLevel) : 'info';
}

type Render = (level: LogLevel, message: string, fields: LogFields) => string;

const jsonLine: Render = (level, message, fields) =>
  JSON.stringify({ level, time: new Date().toISOString(), message, ...fields }, jsonSafe);

const textLine: Render = (level, message, fields) => {
  const pairs = Object.entries(fields)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v, jsonSafe)}`);
  return `${level}: ${message}${pairs.length > 0 ? ` (${pairs.join(' ')})` : ''}`;
};

function build(min: number, write: (line: string) => void, render: Render, base: LogFields): Logger {
  const emit = (level: LogLevel, message: string, fields?: LogFields) => {
    if (rank[level] < min) return;
    write(redact(render(level, message, { ...base, ...fields })));
  };
  return {
    debug: (m, f) => emit('debug', m, f),
    info: (m, f) => emit('info', m, f),
    warn: (m, f) => emit('warn', m, f),
    error: (m, f) => emit('error', m, f),
    child: (fields) => build(min, write, render, { ...base, ...fields }),
    addSecret: registerSecret,
  };
}

function jsonSafe(_key: string, value: unknown): unknown {
  if (value instanceof Error) {
    const code = (value as { code?: unknown }).code;
    return { name: value.name, message: value.message, ...(code === undefined ? {} : { code }) };
  }
  return typeof value === 'bigint' ? value.toString() : value;
}

/** A logger that drops everything: for tests and library callers that do not care. */
export const silentLogger: Logger = createLogger({ write: () => {} });
