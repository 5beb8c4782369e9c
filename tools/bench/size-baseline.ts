// npm run size-baseline: measures the seeded world (size-figures.ts) and rewrites
// docs/size-baseline.json. Commit it on its own, saying why the figures moved.

import { readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { describeAgainst, measureSeededWorld, SIZE_BASELINE_FILE, type SizeFigures } from './size-figures.ts';

const before = JSON.parse(readFileSync(SIZE_BASELINE_FILE, { encoding: 'utf8', flag: 'a+' }) || '{}') as {
  tables?: SizeFigures;
};
const tables = await measureSeededWorld();
await writeFile(SIZE_BASELINE_FILE, `${JSON.stringify({ tables }, null, 2)}\n`);
console.log(describeAgainst(before.tables ?? {}, tables).join('\n'));
console.log(`written: ${SIZE_BASELINE_FILE}`);
