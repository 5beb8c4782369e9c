// The checks every function event shares: a JSON object with known keys only, and flags.

import { EventError } from '../errors.ts';
import { closestName } from './closest-name.ts';

/** The event's fields, or undefined for no event at all; refuses non-objects and unknown keys. */
export function eventFields(
  event: unknown,
  allowedKeys: readonly string[],
  example: string,
): Record<string, unknown> | undefined {
  if (event === null || event === undefined) return undefined;
  if (typeof event !== 'object' || Array.isArray(event)) {
    throw new EventError(
      'EVENT_NOT_OBJECT',
      `event must be a JSON object such as {}${example === '{}' ? '' : ` or ${example}`}`,
    );
  }
  const fields = event as Record<string, unknown>;
  const unknown = Object.keys(fields).filter((k) => !allowedKeys.includes(k));
  if (unknown.length > 0 && isEventBridgeEnvelope(fields)) {
    throw new EventError(
      'EVENT_UNKNOWN_KEYS',
      `event is an EventBridge envelope ("detail-type", "source", "detail", …), not this function's event: its schedule passes {}; give {}${example === '{}' ? '' : ` or ${example}`}`,
    );
  }
  if (unknown.length > 0) {
    const named = unknown.map((k) => {
      const near = closestName(k, allowedKeys);
      return near === undefined ? k : `${k} (did you mean ${near}?)`;
    });
    throw new EventError(
      'EVENT_UNKNOWN_KEYS',
      `event has unknown key(s): ${named.join(', ')}; allowed: ${allowedKeys.join(', ') || 'none (give {})'}`,
    );
  }
  return fields;
}

/** An EventBridge event as a rule delivers it (or as the console's templates show it). */
function isEventBridgeEnvelope(fields: Record<string, unknown>): boolean {
  return 'detail-type' in fields || ('source' in fields && 'detail' in fields);
}

/** An optional true/false flag. */
export function flag(fields: Record<string, unknown>, key: string, code: string): boolean {
  const value = fields[key];
  if (value !== undefined && typeof value !== 'boolean') {
    throw new EventError(code, `"${key}" must be true or false (got ${JSON.stringify(value)})`);
  }
  return value === true;
}
