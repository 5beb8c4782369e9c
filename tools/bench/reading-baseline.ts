// npm run reading-baseline: exports the reading guard's world at its fixed clock, counts the
// objects each saved query and view reads (reading-figures.ts) and rewrites
// docs/reading-baseline.json. Commit it on its own, saying why the counts moved.
import { readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import {
  describeObjectsAgainst,
  GUARD_CLOCK,
  measureObjectsPerQuery,
  type ObjectsPerQuery,
  READING_BASELINE_FILE,
} from './reading-figures.ts';

const before = JSON.parse(readFileSync(READING_BASELINE_FILE, { encoding: 'utf8', flag: 'a+' }) || '{}') as {
  objectsPerQuery?: ObjectsPerQuery;
};
const objectsPerQuery = await measureObjectsPerQuery();
await writeFile(
  READING_BASELINE_FILE,
  `${JSON.stringify({ clock: GUARD_CLOCK, objectsPerQuery }, null, 2)}\n`,
);
console.log(describeObjectsAgainst(before.objectsPerQuery ?? {}, objectsPerQuery).join('\n'));
console.log(`written: ${READING_BASELINE_FILE}`);
