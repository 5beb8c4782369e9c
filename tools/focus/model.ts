// The FOCUS requirements model as the FinOps Foundation's validator publishes it
// (focus_validator/rules/model-<version>.json; see tools/focus/requirements/README.md), and the
// walk from a dataset to the rules it is made of. Only the shape is described here; what each
// CheckFunction means is in conformance.ts.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** The model this repository vendors; swap the file (or pass another path) for model-1.3.json. */
export const DEFAULT_MODEL_PATH = fileURLToPath(new URL('./requirements/model-1.2.json', import.meta.url));

/** ISO 4217 list one (SIX), as the validator ships it beside the model. */
export const CURRENCY_CODES_PATH = fileURLToPath(
  new URL('./requirements/currency_codes.csv', import.meta.url),
);

/** One node of a Requirement or a Condition: a CheckFunction and its arguments, or AND/OR of Items. */
export interface Check {
  CheckFunction: string;
  Items?: Check[];
  ColumnName?: string;
  ColumnAName?: string;
  ColumnBName?: string;
  ResultColumnName?: string;
  ExpectedCount?: number;
  ModelRuleId?: string;
  Value?: string | number | boolean | null;
  [argument: string]: unknown;
}

export interface ValidationCriteria {
  MustSatisfy: string;
  /** MUST, MUST NOT, SHOULD, SHOULD NOT, RECOMMENDED, MAY (model 1.2). */
  Keyword: string;
  /** A Check, or {} for a Dynamic rule. */
  Requirement: Check | Record<string, never>;
  /** A Check that scopes the rows the rule is about, or {}. */
  Condition: Check | Record<string, never>;
  Dependencies: string[];
}

export interface ModelRule {
  Function: string;
  Reference: string;
  EntityType: string;
  Notes: string;
  ModelVersionIntroduced: string;
  Status: string;
  ApplicabilityCriteria: string[];
  /** Static rules can be checked from the data; Dynamic ones need knowledge outside it. */
  Type: string;
  ValidationCriteria: ValidationCriteria;
}

export interface RequirementsModel {
  Details: { ModelVersion: string; FOCUSVersion: string };
  ApplicabilityCriteria: Record<string, { Description: string }>;
  CheckFunctions: Record<string, { Description: string; Arguments: string[]; FormatAttributes: string[] }>;
  ModelDatasets: Record<string, { ModelRules: string[] }>;
  ModelRules: Record<string, ModelRule>;
}

export function loadModel(path: string = DEFAULT_MODEL_PATH): RequirementsModel {
  const model = JSON.parse(readFileSync(path, 'utf8')) as RequirementsModel;
  for (const key of ['Details', 'ApplicabilityCriteria', 'ModelDatasets', 'ModelRules'] as const) {
    if (!model[key]) throw new Error(`${path} is not a FOCUS requirements model: no ${key}`);
  }
  return model;
}

/** A Check is empty ({}) when the rule has no requirement or condition. */
export function isCheck(value: Check | Record<string, never> | undefined): value is Check {
  return !!value && typeof (value as Check).CheckFunction === 'string';
}

/** The ModelRuleIds a Check refers to through CheckModelRule, at any depth. */
export function referencedRules(check: Check | Record<string, never>): string[] {
  if (!isCheck(check)) return [];
  if (check.CheckFunction === 'CheckModelRule') return check.ModelRuleId ? [check.ModelRuleId] : [];
  return (check.Items ?? []).flatMap(referencedRules);
}

/**
 * Every rule of a dataset: its entry rules and, transitively, the rules they reference and
 * depend on (the validator's RuleDependencyResolver.collectDatasetRules follows Dependencies; the
 * referenced rules are always among them in model 1.2, followed here either way). Model order.
 */
export function datasetRules(model: RequirementsModel, dataset = 'CostAndUsage'): string[] {
  const entry = model.ModelDatasets[dataset];
  if (!entry) throw new Error(`the model has no dataset ${dataset}`);
  const seen = new Set<string>();
  const queue = [...entry.ModelRules];
  while (queue.length > 0) {
    const id = queue.shift()!;
    if (seen.has(id)) continue;
    const rule = model.ModelRules[id];
    if (!rule) throw new Error(`rule ${id} is referenced but not in the model`);
    seen.add(id);
    queue.push(
      ...referencedRules(rule.ValidationCriteria.Requirement),
      ...rule.ValidationCriteria.Dependencies,
    );
  }
  return Object.keys(model.ModelRules).filter((id) => seen.has(id));
}
