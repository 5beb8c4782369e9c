// Synthesize the stack for template assertions, bundling skipped for speed; the built-in
// template validation and real bundling run once, in infra-bundle.test.ts.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App, NestedStack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { expect } from 'vitest';
import { CloudforetExportStack } from '../../infra/cloudforet-export-stack.ts';
import { readSettings } from '../../infra/settings.ts';

export type Json = Record<string, unknown>;

/** The stack's template; the synth's output folder is removed before this returns. */
export function synth(context: Json = {}): Template {
  return synthStack({ cloudforetEndpoint: 'https://cf.example.com', ...context }).template;
}

/**
 * The stack itself beside its template, and each nested stack's template by its construct id
 * (a tenant's is `Tenant-<id>`), from `context` alone.
 */
export function synthStack(context: Json): {
  stack: CloudforetExportStack;
  template: Template;
  nested: ReadonlyMap<string, Template>;
} {
  const outdir = mkdtempSync(join(tmpdir(), 'cdk-synth-'));
  try {
    const app = new App({
      outdir,
      context: { 'aws:cdk:bundling-stacks': [] },
      builtinCloudFormationValidation: false,
    });
    const stack = new CloudforetExportStack(app, 'Export', { settings: readSettings(context) });
    const template = Template.fromStack(stack);
    const nested = new Map(
      stack.node.children
        .filter((child): child is NestedStack => child instanceof NestedStack)
        .map((child) => [child.node.id, Template.fromStack(child)]),
    );
    return { stack, template, nested };
  } finally {
    rmSync(outdir, { recursive: true, force: true });
  }
}

/** The logical id of the one resource of `type` whose id starts with `prefix`. */
export function idOf(template: Template, type: string, prefix = ''): string {
  const ids = Object.keys(template.findResources(type)).filter((id) => id.startsWith(prefix));
  expect(ids, `${type} ${prefix}`).toHaveLength(1);
  return ids[0]!;
}

export const arnOf = (id: string) => ({ 'Fn::GetAtt': [id, 'Arn'] });

export function statementsOfRole(template: Template, roleId: string): Json[] {
  const policies = Object.values(template.findResources('AWS::IAM::Policy')).filter((p) =>
    JSON.stringify(p.Properties.Roles).includes(`"${roleId}"`),
  );
  return policies.flatMap((p) => p.Properties.PolicyDocument.Statement as Json[]);
}
