// One rule for every whole-number setting, whether it comes from the Lambda environment, a CLI
// flag or a CDK context key: digits only, within bounds. Number() alone would take '0x10', '1e3',
// ' 16', '1.0' and '' as numbers.

/** The number `text` spells, or undefined when it is not 1 to 9 digits from min to max. */
export function parseWholeNumber(text: string, min: number, max: number): number | undefined {
  if (!/^\d{1,9}$/.test(text)) return undefined;
  const n = Number(text);
  return n >= min && n <= max ? n : undefined;
}

export function wholeNumberProblem(name: string, min: number, max: number, got: string): string {
  return `${name} must be a whole number from ${min} to ${max} (got '${got}')`;
}
