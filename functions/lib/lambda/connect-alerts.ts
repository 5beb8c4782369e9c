// The adapters of the alerts function: the S3 sink and one SNS topic, whose ARN comes from
// ALERTS_TOPIC_ARN (set by the stack on this function only). A publish SNS refuses is an error
// naming the topic and what to check.
import { PublishCommand, SNSClient } from '@aws-sdk/client-sns';
import { snsSubject } from '../alerts/alert-text.ts';
import type { Publish } from '../alerts/sent-ledger.ts';
import type { FunctionConfig } from '../config.ts';
import { ConfigError, ExportError, errorMessage } from '../errors.ts';
import type { Sink } from '../storage/sink.ts';
import { connectSink } from './connect-sink.ts';

const TOPIC_ARN = /^arn:aws[a-z-]*:sns:[a-z0-9-]+:\d{12}:[A-Za-z0-9_-]{1,256}$/;

export function readAlertsTopic(env: Readonly<Record<string, string | undefined>>): string {
  const arn = env.ALERTS_TOPIC_ARN?.trim() ?? '';
  if (!TOPIC_ARN.test(arn)) {
    throw new ConfigError(
      'CONFIG_INVALID',
      `configuration: ALERTS_TOPIC_ARN must be an SNS topic ARN such as arn:aws:sns:us-east-1:123456789012:alerts (got '${arn}'); the stack sets it on the alerts function`,
    );
  }
  return arn;
}

/**
 * One message per kind of subscriber (SNS MessageStructure 'json'): e-mail and the default get the
 * plain text; HTTPS subscribers, which is what AWS Chatbot is, get Chatbot's custom notification
 * (it drops plain text), so one topic serves e-mail and Slack.
 */
export function snsMessage(subject: string, body: string): string {
  const chatbot = {
    version: '1.0',
    source: 'custom',
    content: { textType: 'client-markdown', title: subject, description: `\`\`\`\n${body}\`\`\`` },
  };
  return JSON.stringify({ default: body, email: body, https: JSON.stringify(chatbot) });
}

/**
 * In a stack of tenants every tenant's alerts reach the one topic: each names its tenant, in the
 * subject (first), in the body's first line and in the message attribute `tenant`, on which a
 * subscription's filter policy routes it to that tenant's recipients.
 */
export function snsPublish(client: SNSClient, topicArn: string, tenant?: string): Publish {
  return async (alert) => {
    const { subject, body } =
      tenant === undefined
        ? alert
        : { subject: snsSubject(`[${tenant}] ${alert.subject}`), body: `Tenant: ${tenant}\n\n${alert.body}` };
    try {
      const answer = await client.send(
        new PublishCommand({
          TopicArn: topicArn,
          Subject: subject,
          MessageStructure: 'json',
          Message: snsMessage(subject, body),
          // What a subscription's filter policy routes on: one tenant's recipients get its alerts.
          ...(tenant !== undefined && {
            MessageAttributes: { tenant: { DataType: 'String', StringValue: tenant } },
          }),
        }),
      );
      return answer.MessageId ?? '';
    } catch (error) {
      const status = (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
      throw new ExportError(
        'SNS_PUBLISH_FAILED',
        `sns: could not publish to ${topicArn}: ${status ?? 'no answer'} ${(error as { name?: string }).name ?? ''} ${errorMessage(error)}; check that the topic exists and the function's role may sns:Publish to it`,
        { cause: error },
      );
    }
  };
}

export async function connectAlerts(entry: {
  readonly config: FunctionConfig;
  readonly tenant?: string | undefined;
}): Promise<{ sink: Sink; publish: Publish }> {
  const topicArn = readAlertsTopic(process.env);
  return { ...(await connectSink(entry)), publish: snsPublish(new SNSClient({}), topicArn, entry.tenant) };
}
