// Every shipped SQL file (saved queries and views in infra/queries/) parses with Trino's own
// ANTLR grammar (dt-sql-parser's TrinoSQL), the dialect Athena engine v3 runs, so a typo cannot ship.
// Only the Trino grammar: the package's index loads all seven dialects, which vitest transforms (inlined:
// its ESM build uses extensionless imports) for about 10 s.
import { TrinoSQL } from 'dt-sql-parser/dist/parser/trino/index.js';
import { describe, expect, it } from 'vitest';
import { loadNamedQueries } from '../../infra/named-queries.ts';

const trino = new TrinoSQL();
const queries = loadNamedQueries();

describe('shipped SQL under the Trino grammar', () => {
  it.each(queries.map((q) => [q.name, q.sql]))('%s parses as one Trino statement', (_name, sql) => {
    const errors = trino.validate(sql);
    const statements = trino.splitSQLByStatement(sql) ?? [];

    expect(errors).toEqual([]);
    expect(statements).toHaveLength(1);
  });

  it('finds every file, views included', () => {
    const names = queries.map((q) => q.name);

    expect(names).toEqual(
      expect.arrayContaining(['create_costs_named_view', 'create_focus_view_aws_consolidation']),
    );
  });

  it('rejects what Athena would reject: a misspelt keyword, a missing comma, a stray quote', () => {
    const [named] = queries.filter((q) => q.name === 'create_costs_named_view');
    const [focus] = queries.filter((q) => q.name === 'create_focus_view_aws_consolidation');
    const broken = [
      focus!.sql.replace('FROM focus', 'FORM focus'),
      focus!.sql.replace('AS AvailabilityZone,', 'AS AvailabilityZone'),
      named!.sql.replace("INTERVAL '7' DAY", "INTERVAL '7 DAY"),
    ];

    for (const sql of broken) expect(trino.validate(sql).length, sql.slice(0, 40)).toBeGreaterThan(0);
  });
});
