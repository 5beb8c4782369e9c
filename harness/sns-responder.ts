// A loopback SNS responder for the real SNSClient: the AWS Query protocol it speaks (a form-encoded
// POST with Action=Publish&Version=2010-03-31, answered in XML), Publish only, with SNS's own
// checks of the topic, the subject and a MessageStructure=json message (one entry per protocol). Point a client at it with AWS_ENDPOINT_URL_SNS.
// The checks follow the Amazon SNS API Reference for Publish (as the SDK's PublishInput documents
// it), paraphrased: a Subject is printable ASCII with no line breaks, up to 100 characters; with
// MessageStructure=json each protocol's key holds a plain string and a top-level `default` entry
// is required, else Publish fails with InvalidParameter.
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface PublishedMessage {
  readonly topicArn: string;
  readonly subject: string | undefined;
  /** What an e-mail subscriber receives (the `email` entry of a MessageStructure=json message). */
  readonly message: string;
  /** What an HTTPS subscriber (AWS Chatbot) receives; the same as message unless structured. */
  readonly https: string;
  readonly messageId: string;
}

export interface SnsResponder {
  readonly endpoint: string;
  readonly topicArn: string;
  /** Messages SNS accepted, in order. */
  readonly published: PublishedMessage[];
  /** Publish requests received, accepted or not. */
  readonly requests: number;
  /** Answer every Publish with 500 InternalError (SNS having a bad day) until set back. */
  setFailing(failing: boolean): void;
  stop(): Promise<void>;
}

const XMLNS = 'http://sns.amazonaws.com/doc/2010-03-31/';

export async function startSns(topicName = 'cloudforet-export-alerts'): Promise<SnsResponder> {
  const topicArn = `arn:aws:sns:us-east-1:123456789012:${topicName}`;
  const published: PublishedMessage[] = [];
  let failing = false;
  let requests = 0;

  const server = createServer(async (req, res) => {
    const form = new URLSearchParams(await readBody(req));
    if (req.method !== 'POST' || form.get('Action') !== 'Publish' || form.get('Version') !== '2010-03-31') {
      return error(res, 400, 'Sender', 'InvalidAction', `unsupported: ${form.get('Action')}`);
    }
    requests += 1;
    if (failing) return error(res, 500, 'Receiver', 'InternalError', 'Internal Error');
    if (form.get('TopicArn') !== topicArn)
      return error(res, 404, 'Sender', 'NotFound', 'Topic does not exist');
    const subject = form.get('Subject') ?? undefined;
    if (subject !== undefined && (subject.length > 100 || !/^[\x20-\x7e]+$/.test(subject))) {
      return error(res, 400, 'Sender', 'InvalidParameter', 'Invalid parameter: Subject');
    }
    const raw = form.get('Message') ?? '';
    if (raw === '' || Buffer.byteLength(raw) > 262_144) {
      return error(res, 400, 'Sender', 'InvalidParameter', 'Invalid parameter: Message too long or empty');
    }
    let perProtocol: Record<string, unknown> = { default: raw };
    if (form.get('MessageStructure') === 'json') {
      try {
        perProtocol = JSON.parse(raw) as Record<string, unknown>;
      } catch {
        return error(
          res,
          400,
          'Sender',
          'InvalidParameter',
          'Invalid parameter: Message Structure - JSON message body failed to parse',
        );
      }
      if (typeof perProtocol.default !== 'string') {
        return error(
          res,
          400,
          'Sender',
          'InvalidParameter',
          'Invalid parameter: Message Structure - No default entry in JSON message body',
        );
      }
    }
    const pick = (protocol: string) => String(perProtocol[protocol] ?? perProtocol.default);
    const messageId = randomUUID();
    published.push({ topicArn, subject, message: pick('email'), https: pick('https'), messageId });
    answer(
      res,
      200,
      `<PublishResponse xmlns="${XMLNS}">\n  <PublishResult>\n    <MessageId>${messageId}</MessageId>\n  </PublishResult>\n  <ResponseMetadata>\n    <RequestId>${randomUUID()}</RequestId>\n  </ResponseMetadata>\n</PublishResponse>\n`,
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    topicArn,
    published,
    get requests() {
      return requests;
    },
    setFailing: (on) => {
      failing = on;
    },
    stop: () =>
      new Promise<void>((resolve, reject) => {
        server.close((e) => (e ? reject(e) : resolve()));
        server.closeAllConnections();
      }),
  };
}

function error(res: ServerResponse, status: number, type: string, code: string, message: string): void {
  answer(
    res,
    status,
    `<ErrorResponse xmlns="${XMLNS}">\n  <Error>\n    <Type>${type}</Type>\n    <Code>${code}</Code>\n    <Message>${message}</Message>\n  </Error>\n  <RequestId>${randomUUID()}</RequestId>\n</ErrorResponse>\n`,
  );
}

function answer(res: ServerResponse, status: number, xml: string): void {
  res.writeHead(status, {
    'content-type': 'text/xml',
    'content-length': Buffer.byteLength(xml),
    'x-amzn-requestid': randomUUID(),
  });
  res.end(xml);
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}
