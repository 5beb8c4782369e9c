// The shapes people paste as a client_secret that hold one token unambiguously are taken: the
// console's 'Download YAML' file, an Authorization header's 'Bearer <token>', a token wrapped over
// lines. What cannot be taken is a row of test/system/cli/bad-input-matrix.test.ts.
import { describe, expect, it } from 'vitest';
import { parseCredential } from '../../functions/lib/cloudforet/secret.ts';
import { makeTestToken } from '../../harness/tokens.ts';

const NOW = new Date('2026-06-01T00:00:00Z');
const TOKEN = makeTestToken({ exp: NOW.getTime() / 1000 + 86_400 });
const SOURCE = "file 'app'";

describe('parseCredential takes the shapes people paste', () => {
  it("takes the token of the console's 'Download YAML' file", () => {
    const yaml = `client_id: client-1234\ntoken: ${TOKEN}\nendpoint: https://console-v2.api.example.com\n`;

    expect(parseCredential(yaml, SOURCE, NOW).token).toBe(TOKEN);
  });

  it('takes a quoted client_secret of a YAML file', () => {
    expect(parseCredential(`name: app\nclient_secret: "${TOKEN}"\n`, SOURCE, NOW).token).toBe(TOKEN);
  });

  it("takes the token of 'Bearer <token>'", () => {
    expect(parseCredential(`Bearer ${TOKEN}`, SOURCE, NOW).token).toBe(TOKEN);
  });

  it('takes a token wrapped over lines', () => {
    const wrapped = TOKEN.match(/.{1,64}/g)!.join('\n');

    expect(parseCredential(wrapped, SOURCE, NOW).token).toBe(TOKEN);
  });
});
