// FOCUS conformance of Parquet files, judged by the FOCUS requirements model (the FinOps
// Foundation validator's rules, tools/focus/requirements/) evaluated in DuckDB. Written for this
// repository; the validator's code is not used, its behaviour is cited where followed or left.
//
// How the model is read:
// - The rules are those of the CostAndUsage dataset: its entry rule and every rule reached through
//   CheckModelRule items and Dependencies (model.ts, datasetRules).
// - Applicability: a rule applies when every one of its ApplicabilityCriteria is declared supported
//   (applicability.ts). The validator (_check_rule_applicability) needs any one of them; the
//   model's texts say "and" ("... when the provider supports billing based on provisioned
//   resources and supports assigning types to resources", CostAndUsage-D-039-C). A rule does not
//   apply either when the composite that references it does not apply, or when a rule it depends
//   on (Dependencies beyond its own items) does not apply - but for Attribute rules, which
//   CostAndUsage-D-000-M lists as Dependencies for order, not as preconditions
//   (DiscountHandling-A-000-C needs commitment discounts; the dataset rule still applies), and for
//   rules of the same column, which the model lists for order too (ListCost-C-000-M depends on
//   ListCost-C-007-C). A Column rule about a column the data does not have does not apply either.
// - A rule whose check reads a column the data does not have does not apply to the data: the
//   column's presence rule (CostAndUsage-D-0xx) says whether it had to be there. The validator
//   turns the binder error into a failure instead. A column that a *condition* reads and the data
//   lacks reads as NULL (a conditional column absent because its criterion does not hold has no
//   value on any row); the validator failed those rules on the binder error.
// - Type Dynamic rules are not evaluated (the validator: SkippedDynamicCheck), nor MAY rules, which
//   permit and cannot be broken (SkippedOptionalCheck).
// - Conditions: a check counts the rows where its Requirement breaks (sql.ts, violation) among the
//   rows its own Condition and the Conditions of every composite above it select (sql.ts, scope).
//   The validator adds the condition of the composite directly above (its "downstream composites")
//   and of the rules it depends on; in model 1.2 no static rule depends on a rule with a condition.
// - Composites (AND/OR of CheckModelRule): AND fails when an item fails; OR passes when an item
//   passes (as the validator's reference checks). Items that do not apply or are not evaluated do not
//   count (the validator's _apply_composite_aggregation); a composite none of whose items apply
//   does not apply.
// - Keyword: a MUST / MUST NOT rule broken is a failure; SHOULD / SHOULD NOT / RECOMMENDED broken is
//   a warning. A composite with a SHOULD keyword reports its items' failures as a warning (the items
//   themselves still fail).
import { type DuckDBConnection, DuckDBInstance, type Json } from '@duckdb/node-api';
import { type Applicability, cloudforetApplicability } from './applicability.ts';
import {
  type Check,
  DEFAULT_MODEL_PATH,
  datasetRules,
  isCheck,
  loadModel,
  type ModelRule,
  type RequirementsModel,
  referencedRules,
} from './model.ts';
import { checkColumns, ident, literal, scope, UnsupportedCheck, violation } from './sql.ts';
import {
  FOCUS_13_DRAFT,
  FOCUS_13_STRING_COLUMNS,
  type SupplementaryRule,
  supplementaryRules,
} from './supplementary.ts';

export type Status = 'pass' | 'fail' | 'warn' | 'not-applicable' | 'not-evaluated';

export interface RuleResult {
  id: string;
  source: 'model' | 'supplementary';
  keyword: string;
  /** Dataset, Column or Attribute (model), Supplementary. */
  entity: string;
  kind: 'check' | 'composite';
  status: Status;
  /** The rule's text (MustSatisfy). */
  requirement: string;
  /** Rows (or groups, or columns) that break it, when checked. */
  violations?: number;
  /** Up to three of them. */
  samples?: Record<string, Json>[];
  /** Why it does not apply, why it was not evaluated, what failed, or a note on a pass. */
  reason?: string;
}

/** What a rule's evaluation says, beside what the rule is. */
type Verdict = Pick<RuleResult, 'status' | 'violations' | 'samples' | 'reason'>;

export interface Counts {
  rules: number;
  /** Evaluated against the data: passed + failed + warned. */
  applied: number;
  passed: number;
  /** MUST-level rules broken. */
  failed: number;
  /** SHOULD-level rules broken. */
  warned: number;
  notApplicable: number;
  /** Of those, the rules exempted by a criterion applicability.ts declares unsupported. */
  exempted: number;
  notEvaluated: number;
}

export interface ConformanceReport {
  model: { path: string; version: string; dataset: string };
  columns: Record<string, string>;
  rows: number;
  rules: RuleResult[];
  counts: Counts;
  countsBySource: { model: Counts; supplementary: Counts };
  /** Checks (not composites) whose MUST-level requirement the data breaks. */
  failures: RuleResult[];
  /** Checks whose SHOULD-level requirement the data breaks. */
  warnings: RuleResult[];
}

export interface ConformanceOptions {
  /** Parquet files: a glob (hive partition folders become columns) or a list of them. */
  parquetGlob: string | string[];
  /** A model file path (default tools/focus/requirements/model-1.2.json) or a loaded model. */
  model?: string | RequirementsModel;
  applicability?: Applicability;
  /** Rules beside the model's (default supplementary.ts); false for the model's alone. */
  supplementary?: SupplementaryRule[] | false;
  dataset?: string;
}

const MUST_LEVEL = new Set(['MUST', 'MUST NOT', 'REQUIRED', 'SHALL', 'SHALL NOT']);
const SHOULD_LEVEL = new Set(['SHOULD', 'SHOULD NOT', 'RECOMMENDED', 'NOT RECOMMENDED']);
const MAY_LEVEL = new Set(['MAY', 'OPTIONAL']);
const SAMPLE_ROWS = 3;

function level(keyword: string): 'must' | 'should' | 'may' {
  if (MUST_LEVEL.has(keyword)) return 'must';
  if (SHOULD_LEVEL.has(keyword)) return 'should';
  if (MAY_LEVEL.has(keyword)) return 'may';
  throw new Error(`unknown keyword ${keyword}`);
}

/** The data, as DuckDB reads it. */
class Data {
  constructor(
    private readonly connection: DuckDBConnection,
    /** The columns of the files, name to DuckDB type. */
    readonly columns: Map<string, string>,
  ) {}

  has(column: string): boolean {
    return this.columns.has(column);
  }

  async rows(sql: string): Promise<Record<string, Json>[]> {
    return (await this.connection.runAndReadAll(sql)).getRowObjectsJson();
  }

  async count(sql: string): Promise<number> {
    const [row] = await this.rows(sql);
    return Number(row?.n ?? 0);
  }
}

const TABLE = 'focus_data';

class Evaluator {
  private readonly parentOf = new Map<string, string>();
  private readonly results = new Map<string, RuleResult>();
  private readonly running = new Set<string>();
  private readonly inapplicable = new Map<string, string | null>();

  constructor(
    private readonly model: RequirementsModel,
    private readonly applicability: Applicability,
    private readonly data: Data,
    ids: string[],
  ) {
    for (const id of ids) {
      for (const child of referencedRules(this.rule(id).ValidationCriteria.Requirement)) {
        if (!this.parentOf.has(child)) this.parentOf.set(child, id);
      }
    }
  }

  private rule(id: string): ModelRule {
    const rule = this.model.ModelRules[id];
    if (!rule) throw new Error(`rule ${id} is not in the model`);
    return rule;
  }

  /** Why a rule does not apply, or null when it does. Decided from the model and declaration alone. */
  notApplicable(id: string, seen = new Set<string>()): string | null {
    const known = this.inapplicable.get(id);
    if (known !== undefined) return known;
    if (seen.has(id)) return null;
    seen.add(id);
    const rule = this.rule(id);
    let why: string | null = null;
    const unmet = rule.ApplicabilityCriteria.filter((name) => !this.applicability[name]?.supported);
    if (unmet.length > 0) {
      why = `${unmet.join(' and ')} ${unmet.length > 1 ? 'are' : 'is'} not supported (applicability.ts)`;
    }
    const parent = this.parentOf.get(id);
    if (!why && parent) {
      const up = this.notApplicable(parent, seen);
      if (up) why = `${parent} does not apply (${rootCause(up)})`;
    }
    if (!why) {
      const items = new Set(referencedRules(rule.ValidationCriteria.Requirement));
      for (const dep of rule.ValidationCriteria.Dependencies) {
        // Dependencies within the rule's own column (ListCost-C-000-M lists ListCost-C-007-C, an
        // item of ListCost-C-006-C) order the rules; only another column's rules are preconditions.
        if (items.has(dep) || this.rule(dep).EntityType === 'Attribute' || family(dep) === family(id))
          continue;
        const up = this.notApplicable(dep, seen);
        if (up) {
          why = `it depends on ${dep}, which does not apply (${rootCause(up)})`;
          break;
        }
      }
    }
    this.inapplicable.set(id, why);
    return why;
  }

  /** The Conditions of the composites above a rule, nearest first. */
  private inheritedConditions(id: string): Check[] {
    const conditions: Check[] = [];
    const seen = new Set<string>([id]);
    for (let up = this.parentOf.get(id); up && !seen.has(up); up = this.parentOf.get(up)) {
      seen.add(up);
      const condition = this.rule(up).ValidationCriteria.Condition;
      if (isCheck(condition)) conditions.push(condition);
    }
    return conditions;
  }

  async evaluate(id: string): Promise<RuleResult> {
    const done = this.results.get(id);
    if (done) return done;
    const rule = this.rule(id);
    const criteria = rule.ValidationCriteria;
    const base = {
      id,
      source: 'model' as const,
      keyword: criteria.Keyword,
      entity: rule.EntityType,
      kind: rule.Function === 'Composite' ? ('composite' as const) : ('check' as const),
      requirement: criteria.MustSatisfy,
    };
    if (this.running.has(id)) return { ...base, status: 'not-evaluated', reason: 'it refers to itself' };
    this.running.add(id);
    const result = { ...base, ...(await this.judge(id, rule)) };
    this.running.delete(id);
    this.results.set(id, result);
    return result;
  }

  private async judge(id: string, rule: ModelRule): Promise<Verdict> {
    const criteria = rule.ValidationCriteria;
    const why = this.notApplicable(id);
    if (why) return { status: 'not-applicable', reason: why };
    // A Column rule (Reference: the column) about a column the data lacks: its presence rule judges.
    if (rule.EntityType === 'Column' && !this.data.has(rule.Reference)) {
      return { status: 'not-applicable', reason: `column ${rule.Reference} is not in the dataset` };
    }
    if (rule.Type === 'Dynamic') {
      return {
        status: 'not-evaluated',
        reason: 'Dynamic: needs knowledge beyond the rows (the model has no check)',
      };
    }
    if (level(criteria.Keyword) === 'may') {
      return { status: 'not-evaluated', reason: 'MAY: a permission, nothing in the data can break it' };
    }
    const requirement = criteria.Requirement;
    if (!isCheck(requirement))
      return { status: 'not-evaluated', reason: 'Static, but the model gives no check' };
    const references = referencedRules(requirement);
    if (references.length === 0) return this.check(id, requirement, criteria.Keyword);
    const items = requirement.Items ?? [];
    const composite = requirement.CheckFunction === 'AND' || requirement.CheckFunction === 'OR';
    if (!composite || items.some((item) => item.CheckFunction !== 'CheckModelRule')) {
      return { status: 'not-evaluated', reason: 'unsupported: mixes rule references with value checks' };
    }
    const children: RuleResult[] = [];
    for (const child of references) children.push(await this.evaluate(child));
    return aggregate(requirement.CheckFunction as 'AND' | 'OR', children, criteria.Keyword);
  }

  /** A check of the rows, within the rule's condition and those above it. */
  private async check(
    id: string,
    requirement: Check,
    keyword: string,
    conditions: Check[] = this.conditionsOf(id),
  ): Promise<Verdict> {
    const fn = requirement.CheckFunction;
    if (fn === 'ColumnPresent') {
      const name = String(requirement.ColumnName);
      return this.data.has(name)
        ? { status: 'pass', violations: 0 }
        : {
            status: broken(keyword),
            violations: 1,
            samples: [{ missingColumn: name }],
            reason: `column ${name} is not in the dataset`,
          };
    }
    const columns = unique(checkColumns(requirement));
    const absent = columns.filter((name) => !this.data.has(name));
    if (absent.length > 0) {
      return { status: 'not-applicable', reason: `column ${absent.join(', ')} is not in the dataset` };
    }
    let where: string;
    let counted: string;
    let sample: string;
    let conditionColumns: string[];
    try {
      const scopes = conditions.map(scope);
      conditionColumns = unique(conditions.flatMap(checkColumns));
      const inScope = scopes.length > 0 ? scopes.map((s) => `coalesce((${s}), false)`).join(' AND ') : 'TRUE';
      if (fn === 'CheckDistinctCount') {
        // CheckDistinctCountGenerator: per ColumnAName (within the condition), the number of
        // distinct ColumnBName values must be ExpectedCount; each group that differs is a violation.
        const a = ident(String(requirement.ColumnAName));
        const b = ident(String(requirement.ColumnBName));
        const groups =
          `SELECT ${a} AS ${ident(String(requirement.ColumnAName))}, count(DISTINCT ${b}) AS distinct_count, ` +
          `list(DISTINCT ${b}) AS ${ident(`${requirement.ColumnBName} values`)} FROM ${TABLE} WHERE ${inScope} ` +
          `GROUP BY ${a} HAVING count(DISTINCT ${b}) <> ${literal(requirement.ExpectedCount)}`;
        counted = `SELECT count(*) AS n FROM (${groups})`;
        sample = `${groups} LIMIT ${SAMPLE_ROWS}`;
        where = '';
      } else {
        where = `coalesce((${violation(requirement)}), false) AND ${inScope}`;
        counted = `SELECT count(*) AS n FROM ${TABLE} WHERE ${where}`;
        const shown = unique([
          ...columns,
          ...conditionColumns.filter((c) => this.data.has(c)),
          'x_cost_id',
        ]).filter((c) => this.data.has(c));
        sample = `SELECT ${shown.map(ident).join(', ')} FROM ${TABLE} WHERE ${where} LIMIT ${SAMPLE_ROWS}`;
      }
    } catch (error) {
      if (error instanceof UnsupportedCheck)
        return { status: 'not-evaluated', reason: `unsupported: ${error.message}` };
      throw error;
    }
    const violations = await this.data.count(counted);
    const missing = conditionColumns.filter((c) => !this.data.has(c));
    const note =
      missing.length > 0 ? `condition reads ${missing.join(', ')}, not in the dataset, as NULL` : undefined;
    if (violations === 0) return { status: 'pass', violations, ...(note ? { reason: note } : {}) };
    return {
      status: broken(keyword),
      violations,
      samples: await this.data.rows(sample),
      reason: [`${violations} ${fn === 'CheckDistinctCount' ? 'groups break' : 'rows break'} it`, note]
        .filter(Boolean)
        .join('; '),
    };
  }

  private conditionsOf(id: string): Check[] {
    const own = this.rule(id).ValidationCriteria.Condition;
    return [...(isCheck(own) ? [own] : []), ...this.inheritedConditions(id)];
  }

  async supplementary(rule: SupplementaryRule): Promise<RuleResult> {
    const base = {
      id: rule.id,
      source: 'supplementary' as const,
      keyword: rule.keyword,
      entity: 'Supplementary',
      kind: 'check' as const,
      requirement: `${rule.requirement} [${rule.source}]`,
    };
    const spec = rule.check;
    switch (spec.kind) {
      case 'model-check':
        return { ...base, ...(await this.check(rule.id, spec.requirement, rule.keyword, [])) };
      case 'deprecated-column':
        return {
          ...base,
          status: 'pass',
          reason: this.data.has(spec.column)
            ? `${spec.column} is present; deprecated in 1.3, removed in 1.4`
            : `${spec.column} is absent`,
        };
      case 'sql':
        return { ...base, ...(await this.sqlCheck(spec.violation, spec.columns, rule.keyword)) };
      case 'custom-columns': {
        const known = this.focusColumns();
        const custom = [...this.data.columns.keys()].filter(
          (name) => !known.has(name) && !name.startsWith('x_'),
        );
        return custom.length === 0
          ? { ...base, status: 'pass', violations: 0 }
          : {
              ...base,
              status: broken(rule.keyword),
              violations: custom.length,
              samples: custom.slice(0, SAMPLE_ROWS).map((column) => ({ column })),
              reason: `not FOCUS columns and not x_-prefixed: ${custom.join(', ')}`,
            };
      }
      case 'present-where-clouds-support': {
        const required = this.presentWhereCloudsSupport();
        const missing = required.filter((name) => !this.data.has(name));
        return missing.length === 0
          ? { ...base, status: 'pass', violations: 0, reason: `present: ${required.join(', ')}` }
          : {
              ...base,
              status: broken(rule.keyword),
              violations: missing.length,
              reason: `not in the dataset: ${missing.join(', ')}`,
            };
      }
      case 'empty-strings': {
        const strings = [...this.focusStringColumns()].filter(
          (name) => this.data.columns.get(name) === 'VARCHAR',
        );
        if (strings.length === 0)
          return { ...base, status: 'not-applicable', reason: 'no FOCUS string columns' };
        const blank = strings.map((name) => `trim(${ident(name)}) = ''`).join(' OR ');
        const found = await this.sqlCheck(blank, strings, rule.keyword);
        if (found.status === 'pass') return { ...base, ...found };
        const counts = await this.data.rows(
          `SELECT ${strings.map((name) => `count(*) FILTER (WHERE trim(${ident(name)}) = '') AS ${ident(name)}`).join(', ')} FROM ${TABLE}`,
        );
        const which = Object.entries(counts[0] ?? {}).filter(([, n]) => Number(n) > 0);
        return {
          ...base,
          ...found,
          samples: which.slice(0, SAMPLE_ROWS).map(([column, n]) => ({ column, rows: n })),
          reason: `blank strings in ${which.map(([column, n]) => `${column} (${n})`).join(', ')}`,
        };
      }
    }
  }

  private async sqlCheck(violationSql: string, columns: string[], keyword: string): Promise<Verdict> {
    const absent = columns.filter((name) => !this.data.has(name));
    if (absent.length > 0)
      return { status: 'not-applicable', reason: `column ${absent.join(', ')} is not in the dataset` };
    const where = `coalesce((${violationSql}), false)`;
    const violations = await this.data.count(`SELECT count(*) AS n FROM ${TABLE} WHERE ${where}`);
    if (violations === 0) return { status: 'pass', violations };
    const shown = unique([...columns, 'x_cost_id']).filter((c) => this.data.has(c));
    return {
      status: broken(keyword),
      violations,
      samples: await this.data.rows(
        `SELECT ${shown.map(ident).join(', ')} FROM ${TABLE} WHERE ${where} LIMIT ${SAMPLE_ROWS}`,
      ),
      reason: `${violations} rows break it`,
    };
  }

  /**
   * The columns of the model's MUST presence rules ("X MUST be present in a FOCUS dataset when the
   * provider supports ...") whose criteria hold or are marked cloudsSupport, one of them at least not
   * declared supported: the columns present only because the clouds support the concept.
   */
  private presentWhereCloudsSupport(): string[] {
    const names: string[] = [];
    for (const rule of Object.values(this.model.ModelRules)) {
      const column = /^(\w+) MUST be present in a FOCUS dataset when/.exec(
        rule.ValidationCriteria.MustSatisfy,
      )?.[1];
      const criteria = rule.ApplicabilityCriteria.map((name) => this.applicability[name]);
      if (!column || rule.ValidationCriteria.Keyword !== 'MUST') continue;
      if (!criteria.every((c) => c?.supported || c?.cloudsSupport)) continue;
      if (criteria.every((c) => c?.supported)) continue;
      names.push(column);
    }
    return unique(names).sort();
  }

  /** Column names FOCUS defines: the model's Column rules and presence checks, and the 1.3 ones. */
  private focusColumns(): Set<string> {
    const names = new Set<string>(FOCUS_13_STRING_COLUMNS);
    for (const rule of Object.values(this.model.ModelRules)) {
      if (rule.EntityType === 'Column') names.add(rule.Reference);
      const requirement = rule.ValidationCriteria.Requirement;
      if (isCheck(requirement) && requirement.CheckFunction === 'ColumnPresent')
        names.add(String(requirement.ColumnName));
    }
    return names;
  }

  /** FOCUS columns of type String: those a TypeString rule names, and the 1.3 ones. */
  private focusStringColumns(): Set<string> {
    const names = new Set<string>(FOCUS_13_STRING_COLUMNS);
    for (const rule of Object.values(this.model.ModelRules)) {
      const requirement = rule.ValidationCriteria.Requirement;
      if (isCheck(requirement) && requirement.CheckFunction === 'TypeString')
        names.add(String(requirement.ColumnName));
    }
    return names;
  }
}

function broken(keyword: string): Status {
  return level(keyword) === 'should' ? 'warn' : 'fail';
}

/** The column (or dataset, or attribute) a rule id belongs to: ListCost for ListCost-C-007-C. */
function family(id: string): string {
  return id.split('-')[0] ?? id;
}

function unique<T>(values: T[]): T[] {
  return [...new Set(values)];
}

/** The innermost reason of a chain of "X does not apply (...)". */
function rootCause(reason: string): string {
  const match = /^(?:\S+ does not apply|it depends on \S+, which does not apply) \((.*)\)$/s.exec(reason);
  return match?.[1] ?? reason;
}

function aggregate(fn: 'AND' | 'OR', children: RuleResult[], keyword: string): Verdict {
  const with_ = (status: Status) => children.filter((c) => c.status === status).map((c) => c.id);
  const failed = with_('fail');
  const warned = with_('warn');
  const passed = with_('pass');
  const downgrade = (status: Status): Status =>
    status === 'fail' && level(keyword) === 'should' ? 'warn' : status;
  if (fn === 'OR' && passed.length > 0)
    return { status: 'pass', reason: `satisfied by ${passed.join(', ')}` };
  if (failed.length > 0)
    return {
      status: downgrade('fail'),
      reason: `${fn === 'OR' ? 'none holds' : 'broken'}: ${failed.join(', ')}`,
    };
  if (warned.length > 0) return { status: 'warn', reason: `broken: ${warned.join(', ')}` };
  if (passed.length > 0) return { status: 'pass' };
  if (children.every((c) => c.status === 'not-applicable')) {
    return {
      status: 'not-applicable',
      reason: `none of its rules apply (${children[0]?.reason ?? 'no items'})`,
    };
  }
  const open = children.filter((c) => c.status === 'not-evaluated').map((c) => c.id);
  return { status: 'not-evaluated', reason: `none of its rules could be evaluated (${open.join(', ')})` };
}

function count(rules: RuleResult[]): Counts {
  const n = (status: Status) => rules.filter((r) => r.status === status).length;
  return {
    rules: rules.length,
    applied: n('pass') + n('fail') + n('warn'),
    passed: n('pass'),
    failed: n('fail'),
    warned: n('warn'),
    notApplicable: n('not-applicable'),
    exempted: rules.filter((r) => exemptedBy(r).length > 0).length,
    notEvaluated: n('not-evaluated'),
  };
}

const EXEMPTED = /(\w+(?: and \w+)*) (?:is|are) not supported \(applicability\.ts\)/;

/** The criteria declared unsupported that keep a rule from applying, if that is why it does not. */
function exemptedBy(result: RuleResult): string[] {
  if (result.status !== 'not-applicable') return [];
  return EXEMPTED.exec(result.reason ?? '')?.[1]?.split(' and ') ?? [];
}

/** How many rules each criterion declared unsupported exempts (a rule under two counts for both). */
export function exemptionsByCriterion(rules: RuleResult[]): Record<string, number> {
  const by: Record<string, number> = {};
  for (const rule of rules) for (const name of exemptedBy(rule)) by[name] = (by[name] ?? 0) + 1;
  return Object.fromEntries(Object.entries(by).sort(([a], [b]) => a.localeCompare(b)));
}

/** The columns every Condition of the rules reads, so that absent ones can read as NULL. */
function conditionColumns(model: RequirementsModel, ids: string[]): string[] {
  const names = new Set<string>();
  for (const id of ids) {
    const condition = model.ModelRules[id]?.ValidationCriteria.Condition;
    if (isCheck(condition)) for (const name of checkColumns(condition)) names.add(name);
  }
  return [...names];
}

export async function checkFocusConformance(options: ConformanceOptions): Promise<ConformanceReport> {
  const modelPath = typeof options.model === 'string' ? options.model : DEFAULT_MODEL_PATH;
  const model = typeof options.model === 'object' ? options.model : loadModel(modelPath);
  const applicability = options.applicability ?? cloudforetApplicability;
  const undeclared = Object.keys(model.ApplicabilityCriteria).filter((name) => !(name in applicability));
  if (undeclared.length > 0) {
    throw new Error(
      `applicability criteria not declared (tools/focus/applicability.ts): ${undeclared.join(', ')}`,
    );
  }
  const dataset = options.dataset ?? 'CostAndUsage';
  const ids = datasetRules(model, dataset);
  const extra = options.supplementary === false ? [] : (options.supplementary ?? supplementaryRules);
  const globs = Array.isArray(options.parquetGlob) ? options.parquetGlob : [options.parquetGlob];

  const instance = await DuckDBInstance.create(':memory:');
  const connection = await instance.connect();
  try {
    await connection.run("SET TimeZone = 'UTC'");
    await connection.run(
      `CREATE VIEW focus_files AS SELECT * FROM read_parquet([${globs.map(literal).join(', ')}], ` +
        'hive_partitioning = true, union_by_name = true)',
    );
    const described = (await connection.runAndReadAll('DESCRIBE focus_files')).getRowObjectsJson();
    const columns = new Map(described.map((row) => [String(row.column_name), String(row.column_type)]));
    const fillers = conditionColumns(model, ids)
      .filter((name) => !columns.has(name))
      .map((name) => `, NULL::VARCHAR AS ${ident(name)}`)
      .join('');
    // Read once into memory: some hundred queries follow, each would read every file again.
    await connection.run(`CREATE TABLE ${TABLE} AS SELECT *${fillers} FROM focus_files`);
    const data = new Data(connection, columns);
    const rows = await data.count(`SELECT count(*) AS n FROM ${TABLE}`);

    const evaluator = new Evaluator(model, applicability, data, ids);
    const results: RuleResult[] = [];
    for (const id of ids) results.push(await evaluator.evaluate(id));
    for (const rule of extra) results.push(await evaluator.supplementary(rule));

    const modelResults = results.filter((r) => r.source === 'model');
    const extraResults = results.filter((r) => r.source === 'supplementary');
    return {
      model: { path: modelPath, version: model.Details.FOCUSVersion, dataset },
      columns: Object.fromEntries(columns),
      rows,
      rules: results,
      counts: count(results),
      countsBySource: { model: count(modelResults), supplementary: count(extraResults) },
      failures: results.filter((r) => r.status === 'fail' && r.kind === 'check'),
      warnings: results.filter((r) => r.status === 'warn' && r.kind === 'check'),
    };
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
}

/** One line of counts, for test output and docs. */
export function formatCounts(label: string, counts: Counts): string {
  return (
    `${label}: ${counts.rules} rules, ${counts.applied} applied (${counts.passed} passed, ${counts.failed} failed, ` +
    `${counts.warned} SHOULD-level warnings), ${counts.notApplicable} not applicable ` +
    `(${counts.exempted} exempted by applicability.ts), ${counts.notEvaluated} not evaluated`
  );
}

/** One line: how many rules the criteria declared unsupported exempt, in all and each. */
export function formatExemptions(report: ConformanceReport): string {
  const by = Object.entries(exemptionsByCriterion(report.rules)).map(([name, n]) => `${name} ${n}`);
  return `exempted by applicability.ts: ${report.counts.exempted} rules (${by.join(', ') || 'none'})`;
}

/** A plain-text table of every rule, failures first. */
export function formatTable(report: ConformanceReport, options: { all?: boolean } = {}): string {
  const order: Status[] = ['fail', 'warn', 'pass', 'not-applicable', 'not-evaluated'];
  const shown = report.rules
    .filter((r) => options.all || r.status === 'fail' || r.status === 'warn')
    .sort((a, b) => order.indexOf(a.status) - order.indexOf(b.status));
  const lines = shown.map((r) =>
    [
      r.status.padEnd(14),
      r.keyword.padEnd(11),
      r.id.padEnd(44),
      String(r.violations ?? '').padStart(7),
      r.reason ?? '',
    ]
      .join(' ')
      .trimEnd(),
  );
  for (const r of shown) {
    if (!r.samples?.length) continue;
    lines.push(`  ${r.id} samples: ${JSON.stringify(r.samples)}`);
  }
  return [
    `FOCUS ${report.model.version} ${report.model.dataset} (${report.model.path}), ${report.rows} rows`,
    formatCounts('all', report.counts),
    formatCounts('model', report.countsBySource.model),
    formatCounts('supplementary', report.countsBySource.supplementary),
    `supplementary rules: tools/focus/supplementary.ts (1.3 text from ${FOCUS_13_DRAFT.repository} ` +
      `${FOCUS_13_DRAFT.ref} at ${FOCUS_13_DRAFT.commit.slice(0, 8)}; static parts of dynamic 1.2 rules)`,
    formatExemptions(report),
    ...lines,
  ].join('\n');
}

/** The checked-in list of every rule that is not applied to the data, and why (markdown). */
export function notAppliedList(
  report: ConformanceReport,
  applicability: Applicability = cloudforetApplicability,
): string {
  const rows = report.rules.filter((r) => r.status === 'not-applicable' || r.status === 'not-evaluated');
  const cell = (text: string) => text.replaceAll('|', '\\|').replaceAll('\n', ' ');
  return [
    `# FOCUS ${report.model.version} rules not applied to the \`focus\` table`,
    '',
    'Generated by test/system/focus/focus-conformance.test.ts from the conformant fixture (the columns the export',
    'writes) with tools/focus/applicability.ts; `npx vitest run test/system/focus/focus-conformance.test.ts -u`',
    'rewrites it. A rule is either not applicable (a criterion the data does not meet, a column it does',
    'not have, a composite above that does not apply) or not evaluated (Dynamic: needs knowledge beyond',
    'the rows; MAY: cannot be broken; or unsupported).',
    '',
    formatCounts('All rules', report.counts),
    '',
    '## Applicability criteria declared',
    '',
    formatExemptions(report),
    '',
    "| Criterion | Supported | The spec's condition | Why |",
    '|:----------|:----------|:--------------------|:----|',
    ...Object.entries(applicability).map(
      ([name, c]) =>
        `| ${name} | ${c.supported ? 'yes' : c.cloudsSupport ? 'no (the clouds do: columns present, NULL)' : 'no'} | ${cell(c.condition)} | ${cell(c.reason)} |`,
    ),
    '',
    '## Rules',
    '',
    '| Rule | Keyword | Status | Why |',
    '|:-----|:--------|:-------|:----|',
    ...rows.map((r) => `| ${r.id} | ${r.keyword} | ${r.status} | ${cell(r.reason ?? '')} |`),
    '',
  ].join('\n');
}
