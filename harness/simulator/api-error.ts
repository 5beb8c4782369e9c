// Cloudforet-shaped errors: `{"detail":{"code","message"}}`, messages with the leading space
// the Python services produce.

// python-core core/error.py: ERROR_* codes and their message templates.
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }

  body(): string {
    return JSON.stringify({ detail: { code: this.code, message: ` ${this.message}` } });
  }
}

export const unknownError = (message: string): ApiError => new ApiError(500, 'ERROR_UNKNOWN', message);

export const dbQueryError = (reason: string): ApiError =>
  new ApiError(500, 'ERROR_DB_QUERY', `Database query failed. (reason = ${reason})`);

export const requiredParameter = (key: string): ApiError =>
  new ApiError(400, 'ERROR_REQUIRED_PARAMETER', `Required parameter. (key = ${key})`);

export const invalidParameter = (key: string, reason: string): ApiError =>
  new ApiError(400, 'ERROR_INVALID_PARAMETER', `Parameter is invalid. (key = ${key}, reason = ${reason})`);

export const notFound = (key: string, value: unknown): ApiError =>
  new ApiError(
    404,
    'ERROR_NOT_FOUND',
    `Resource cannot be found or access is denied. (${key} = ${String(value)})`,
  );

export const authenticateFailure = (message: string): ApiError =>
  new ApiError(401, 'ERROR_AUTHENTICATE_FAILURE', `Authenticate failure. (message = ${message})`);

export const permissionDenied = (): ApiError =>
  new ApiError(403, 'ERROR_PERMISSION_DENIED', 'Permission denied.');

export const unsupportedApi = (path: string): ApiError =>
  new ApiError(500, 'ERROR_UNSUPPORTED_API', `Call Unsupported API. (reason = ${path})`);

export const unknownField = (where: string, field: string): ApiError =>
  unknownError(`Message type "${where}" has no field named "${field}".`);
