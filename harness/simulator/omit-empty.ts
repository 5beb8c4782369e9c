// Cloudforet's protobuf-to-JSON step drops default values: '', 0, false, null and [] vanish
// from records. Free-form objects (tags, data) are Structs and keep what they hold.

export function omitEmpty<T extends Record<string, unknown>>(record: T): T {
  for (const key of Object.keys(record)) {
    const value = record[key];
    if (
      value === '' ||
      value === 0 ||
      value === false ||
      value === null ||
      value === undefined ||
      (Array.isArray(value) && value.length === 0)
    ) {
      delete record[key];
    }
  }
  return record;
}
