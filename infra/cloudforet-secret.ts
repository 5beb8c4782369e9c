// The secret holding the Cloudforet app credential: imported by name, or created empty for the
// user to fill. `policyArn` is what IAM statements name; `secretId` is what the functions read.
import { Stack } from 'aws-cdk-lib';
import { type CfnSecret, type ISecret, Secret } from 'aws-cdk-lib/aws-secretsmanager';
import type { Construct } from 'constructs';

export interface CloudforetSecret {
  readonly secret: ISecret;
  /** The name (imported) or ARN (created) the functions pass to GetSecretValue. */
  readonly secretId: string;
  readonly secretName: string;
  /** The one ARN GetSecretValue is allowed on. */
  readonly policyArn: string;
  readonly putValueCommand: string;
}

export function cloudforetSecret(
  scope: Construct,
  secretName: string | undefined,
  id = 'CloudforetSecret',
): CloudforetSecret {
  const region = Stack.of(scope).region;
  const command = (id: string) =>
    `aws secretsmanager put-secret-value --region ${region} --secret-id ${id} --secret-string file://app.json`;
  if (secretName !== undefined) {
    const secret = Secret.fromSecretNameV2(scope, id, secretName);
    // A name-only import cannot know the 6-character suffix Secrets Manager appends to the ARN.
    const policyArn = `${secret.secretArn}-??????`;
    return { secret, secretId: secretName, secretName, policyArn, putValueCommand: command(secretName) };
  }
  const secret = new Secret(scope, 'CloudforetSecret', {
    description:
      "Cloudforet app credential for the export functions: the app's client_secret, or the whole " +
      "'Download JSON' file from the Cloudforet console",
  });
  // Neither SecretString nor GenerateSecretString: CloudFormation creates the secret empty.
  (secret.node.defaultChild as CfnSecret).addPropertyDeletionOverride('GenerateSecretString');
  return {
    secret,
    secretId: secret.secretArn,
    secretName: secret.secretName,
    policyArn: secret.secretArn,
    putValueCommand: command(secret.secretArn),
  };
}
