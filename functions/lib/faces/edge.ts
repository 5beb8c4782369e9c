// What the CLI takes from the lib that is no use case: the edge every entry has. The connection
// (secret sources, the Cloudforet session, the sink), the setting rules it shares with the
// Lambda and the CDK settings, the logger, the one redactor, and the errors with the one rule
// that tells a usage or configuration error (exit 2) from a failed run (exit 1). The use cases
// themselves come through their faces (faces/*.ts); test/unit/cli-faces.test.ts holds the CLI to both.

import { DestinationClaimError } from '../destination/destination-claim.ts';
import { CloudforetApiError, ConfigError, EventError, errorCode, SecretError, SinkError } from '../errors.ts';

export { endpointExtraProblem } from '../cloudforet/explain.ts';
export { fileSecretSource, type SecretSource, secretsManagerSource } from '../cloudforet/secret.ts';
export { openSession } from '../cloudforet/session.ts';
export { ExportError, errorCode, errorMessage } from '../errors.ts';
export { closestName } from '../input/closest-name.ts';
export { plainHttpProblem } from '../input/endpoint-rule.ts';
export { parseWholeNumber, wholeNumberProblem } from '../input/whole-number.ts';
export { createLogger, logLevelProblem, parseLogLevel } from '../log.ts';
export { redact } from '../redact/redact.ts';
export { openSink } from '../storage/open-sink.ts';
export { parseDestination } from '../storage/sink.ts';
export { tenantDestination, tenantIdProblem } from '../tenant.ts';

/** Errors the user fixes by changing the command line or the configuration, not by retrying. */
export function isUsageOrConfiguration(error: unknown): boolean {
  if (errorCode(error) === 'CLI_USAGE') return true;
  if (error instanceof CloudforetApiError) return !error.retryable;
  return (
    error instanceof EventError ||
    error instanceof ConfigError ||
    error instanceof SecretError ||
    error instanceof SinkError ||
    error instanceof DestinationClaimError
  );
}
