// A stack of tenants names the tenant in every event: an unknown or missing tenant fails before
// anything is connected, naming the tenants there are; a single-domain function refuses one.
import type { SNSClient } from '@aws-sdk/client-sns';
import { describe, expect, it } from 'vitest';
import { snsPublish } from '../../../functions/lib/lambda/connect-alerts.ts';
import { encodeTenants } from '../../../functions/lib/tenant.ts';
import { FUNCTIONS, invoke } from '../../support/bad-input-lambda.ts';

const TENANTS = encodeTenants(
  new Map([
    ['acme', { endpoint: 'https://cf-one.example.invalid', secretId: 'cloudforet/acme' }],
    ['beta', { endpoint: 'https://cf-two.example.invalid', secretId: 'cloudforet/beta' }],
  ]),
);
const tenantStack = { EXPORT_TENANTS: TENANTS, CLOUDFORET_ENDPOINT: '', CLOUDFORET_SECRET_ID: '' };

describe('the tenant of an event', () => {
  it.each(FUNCTIONS)('%s refuses an unknown tenant and names the known ones', async (name) => {
    const said = await invoke(name, { tenant: 'acne' }, tenantStack);

    expect(said).toEqual({
      code: 'EVENT_UNKNOWN_TENANT',
      text: '"tenant": "acne" is not a tenant of this stack (did you mean acme?); the tenants are acme, beta',
    });
  });

  it.each(FUNCTIONS)('%s refuses an event that names no tenant in a stack of tenants', async (name) => {
    const said = await invoke(name, {}, tenantStack);

    expect(said).toEqual({
      code: 'EVENT_TENANT_MISSING',
      text: 'this stack exports several tenants: name one in the event, {"tenant": "<id>", …}; the tenants are acme, beta',
    });
  });

  it('refuses a tenant that is no string, and a tenant in a single-domain stack', async () => {
    expect((await invoke('cost-export', { tenant: 7 }, tenantStack)).code).toBe('EVENT_UNKNOWN_TENANT');
    expect(await invoke('cost-export', { tenant: 'acme' })).toEqual({
      code: 'EVENT_UNKNOWN_TENANT',
      text: 'this function exports one Cloudforet domain (its stack has no tenants): leave "tenant" out of the event',
    });
  });

  it('passes the rest of the event to the function: its own checks still apply', async () => {
    const said = await invoke('cost-export', { tenant: 'beta', date: 'yesterday' }, tenantStack);

    expect(said.code).toBe('EVENT_BAD_DATE');
  });

  it('says what is wrong with EXPORT_TENANTS itself', async () => {
    const said = await invoke(
      'inventory-export',
      { tenant: 'acme' },
      { ...tenantStack, EXPORT_TENANTS: '{' },
    );

    expect(said).toEqual({ code: 'CONFIG_INVALID', text: 'configuration: EXPORT_TENANTS is not JSON' });
  });
});

describe("a tenant's alerts on the shared topic", () => {
  it('name the tenant first in the subject and in the first line, within SNS subject rules', async () => {
    const sent: Array<{ Subject?: string; Message?: string }> = [];
    const client = {
      send: async (command: { input: { Subject?: string; Message?: string } }) => {
        sent.push(command.input);
        return { MessageId: 'm-1' };
      },
    } as unknown as SNSClient;
    const publish = snsPublish(client, 'arn:aws:sns:us-east-1:123456789012:alerts', 'beta-2');

    await publish({ subject: `Budget ${'x'.repeat(120)}`, body: 'Budget: 120 %\n' });

    expect(sent[0]!.Subject).toMatch(/^\[beta-2\] Budget x+\.\.\.$/);
    expect(sent[0]!.Subject).toHaveLength(100);
    expect(JSON.parse(sent[0]!.Message!).default).toBe('Tenant: beta-2\n\nBudget: 120 %\n');
    expect((sent[0] as { MessageAttributes?: unknown }).MessageAttributes).toEqual({
      tenant: { DataType: 'String', StringValue: 'beta-2' },
    });
  });
});
