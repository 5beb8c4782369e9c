// The fixed vocabulary of the synthetic cloud: providers, regions, billed products and the
// cloud service types a collector would report.

export const PROVIDERS = ['aws', 'google_cloud', 'azure'] as const;
export type Provider = (typeof PROVIDERS)[number];

export const REGIONS: Record<Provider, readonly string[]> = {
  aws: ['us-east-1', 'us-west-2', 'ap-northeast-2', 'eu-west-1'],
  google_cloud: ['asia-northeast3', 'us-central1', 'europe-west1'],
  azure: ['koreacentral', 'eastus', 'westeurope'],
};

export interface Product {
  readonly product: string;
  /** The product as a resource-name stem: 'Compute Engine' → 'compute-engine'. */
  readonly slug: string;
  readonly usageTypes: readonly string[];
  readonly unit: string;
  /** `${group}/${type}` of the cloud services this product bills, so `resource` can match them. */
  readonly billedType?: string;
  readonly instanceTypes?: readonly string[];
}

const PRODUCT_TABLE: Record<Provider, readonly Omit<Product, 'slug'>[]> = {
  aws: [
    {
      product: 'AmazonEC2',
      usageTypes: ['BoxUsage', 'EBS:VolumeUsage.gp3', 'DataTransfer-Out-Bytes'],
      unit: 'Hrs',
      billedType: 'EC2/Instance',
      instanceTypes: ['m5.large', 't3.micro', 'c6i.2xlarge', 'r6g.xlarge'],
    },
    {
      product: 'AmazonS3',
      usageTypes: ['TimedStorage-ByteHrs', 'Requests-Tier1'],
      unit: 'GB-Mo',
      billedType: 'S3/Bucket',
    },
    {
      product: 'AmazonRDS',
      usageTypes: ['InstanceUsage:db.r6g.large', 'RDS:GP2-Storage'],
      unit: 'Hrs',
      billedType: 'RDS/Database',
    },
    { product: 'AWSLambda', usageTypes: ['Lambda-GB-Second', 'Request'], unit: 'Lambda-GB-Second' },
    {
      product: 'AmazonCloudWatch',
      usageTypes: ['CW:MetricMonitorUsage', 'DataProcessing-Bytes'],
      unit: 'Metrics',
    },
  ],
  google_cloud: [
    {
      product: 'Compute Engine',
      usageTypes: ['N2 Instance Core running', 'N2 Instance Ram running', 'Storage PD Capacity'],
      unit: 'hour',
      billedType: 'ComputeEngine/Instance',
      instanceTypes: ['n2-standard-4', 'e2-medium', 'n2-highmem-8'],
    },
    {
      product: 'Cloud Storage',
      usageTypes: ['Standard Storage', 'Class A Operations'],
      unit: 'gibibyte month',
      billedType: 'CloudStorage/Bucket',
    },
    { product: 'BigQuery', usageTypes: ['Analysis', 'Active Storage'], unit: 'tebibyte' },
  ],
  azure: [
    {
      product: 'Virtual Machines',
      usageTypes: ['D4s v5', 'B2ms', 'E8s v5'],
      unit: '1 Hour',
      billedType: 'VirtualMachines/Instance',
      instanceTypes: ['Standard_D4s_v5', 'Standard_B2ms', 'Standard_E8s_v5'],
    },
    {
      product: 'Storage',
      usageTypes: ['Hot LRS Data Stored', 'Write Operations'],
      unit: '1 GB/Month',
      billedType: 'StorageAccounts/Instance',
    },
    { product: 'Azure Database for PostgreSQL', usageTypes: ['vCore', 'Storage'], unit: '1 Hour' },
  ],
};

const withSlug = (products: readonly Omit<Product, 'slug'>[]): Product[] =>
  products.map((p) => ({ ...p, slug: p.product.toLowerCase().replace(/ /g, '-') }));

export const PRODUCTS: Record<Provider, readonly Product[]> = {
  aws: withSlug(PRODUCT_TABLE.aws),
  google_cloud: withSlug(PRODUCT_TABLE.google_cloud),
  azure: withSlug(PRODUCT_TABLE.azure),
};

export interface ServiceType {
  readonly provider: Provider;
  readonly group: string;
  readonly type: string;
  readonly kind: 'vm' | 'security-group' | 'bucket' | 'database' | 'function';
  /** Relative frequency among the generated cloud services. */
  readonly weight: number;
}

export const SERVICE_TYPES: readonly ServiceType[] = [
  { provider: 'aws', group: 'EC2', type: 'Instance', kind: 'vm', weight: 6 },
  { provider: 'aws', group: 'EC2', type: 'SecurityGroup', kind: 'security-group', weight: 3 },
  { provider: 'aws', group: 'S3', type: 'Bucket', kind: 'bucket', weight: 2 },
  { provider: 'aws', group: 'RDS', type: 'Database', kind: 'database', weight: 1 },
  { provider: 'aws', group: 'Lambda', type: 'Function', kind: 'function', weight: 1 },
  { provider: 'google_cloud', group: 'ComputeEngine', type: 'Instance', kind: 'vm', weight: 4 },
  { provider: 'google_cloud', group: 'CloudStorage', type: 'Bucket', kind: 'bucket', weight: 1 },
  { provider: 'azure', group: 'VirtualMachines', type: 'Instance', kind: 'vm', weight: 3 },
  { provider: 'azure', group: 'StorageAccounts', type: 'Instance', kind: 'bucket', weight: 1 },
];

export const TAG_VALUES = {
  Name: ['web-01', 'web-02', 'api-gateway', 'batch-worker', 'db-primary', 'cache-01'],
  env: ['prod', 'staging', 'dev'],
  team: ['platform', 'data', 'payments', 'finops'],
} as const;
