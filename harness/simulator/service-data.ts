// The free-form `data` of a cloud service, shaped per kind the way Cloudforet's collector
// plugins shape it (hardware/compute/os for VMs, rules and members for security groups).

import type { ServiceType } from './catalog.ts';
import type { Rng } from './prng.ts';

type Data = Record<string, unknown>;

const LONG_VALUE_EVERY = 25;

export function serviceData(type: ServiceType, rng: Rng, i: number, region: string): Data {
  const data = kindData(type, rng, i, region);
  // Some collectors store whole user-data scripts or policies: >10 KB in one string.
  if (i % LONG_VALUE_EVERY === 3) data['user_data'] = longScript(rng);
  return data;
}

function kindData(type: ServiceType, rng: Rng, i: number, region: string): Data {
  switch (type.kind) {
    case 'vm':
      return vmData(rng, i, region);
    case 'security-group':
      return securityGroupData(rng);
    case 'bucket':
      return {
        storage_class: rng.pick(['STANDARD', 'INTELLIGENT_TIERING', 'NEARLINE']),
        versioning: { status: rng.pick(['Enabled', 'Suspended']) },
        object_count: rng.int(100_000),
        object_total_size: rng.int(5e9) + 0.5,
        public_access: rng.chance(0.1),
      };
    case 'database':
      return {
        engine: 'postgres',
        engine_version: '15.4',
        multi_az: rng.chance(0.5),
        allocated_storage: 100,
      };
    case 'function':
      return { runtime: 'nodejs20.x', memory_size: 512, timeout: 30, handler: 'index.handler' };
  }
}

function launchedAt(rng: Rng, i: number): string {
  const base = `2024-${String(1 + rng.int(12)).padStart(2, '0')}-${String(1 + rng.int(28)).padStart(2, '0')}T0${rng.int(10)}:15:30`;
  // Collectors disagree on zones: some naive, some with an offset, some UTC.
  if (i % 3 === 0) return base;
  if (i % 3 === 1) return `${base}+09:00`;
  return `${base}Z`;
}

function vmData(rng: Rng, i: number, region: string): Data {
  const core = 2 ** (1 + rng.int(4));
  const linux = rng.chance(0.8);
  return {
    hardware: { core, memory: core * rng.pick([2, 3.75, 4, 8]) },
    compute: {
      instance_state: rng.pick(['RUNNING', 'RUNNING', 'RUNNING', 'STOPPED']),
      az: `${region}${rng.pick(['a', 'b', 'c'])}`,
      launched_at: launchedAt(rng, i),
      security_groups: [{ id: `sg-0${rng.hex(8)}`, name: 'default' }],
    },
    os: linux
      ? { os_type: 'LINUX', os_distro: rng.pick(['amazonlinux', 'ubuntu', 'rhel']) }
      : { os_type: 'WINDOWS', os_distro: 'win2022' },
  };
}

function securityGroupData(rng: Rng): Data {
  const members = rng.int(4);
  return {
    group_id: `sg-0${rng.hex(16)}`,
    vpc_id: `vpc-${rng.hex(8)}`,
    instances: Array.from({ length: members }, (_, k) => ({
      instance_id: `i-0${rng.hex(16)}`,
      instance_name: `web-0${k + 1}`,
    })),
    ip_permissions: [
      { protocol: 'tcp', from_port: 443, to_port: 443, ip_ranges: [{ cidr_ip: '0.0.0.0/0' }] },
      { protocol: 'tcp', from_port: 22, to_port: 22, ip_ranges: [{ cidr_ip: `10.${rng.int(255)}.0.0/16` }] },
    ],
  };
}

function longScript(rng: Rng): string {
  const lines = ['#!/bin/bash', 'set -euo pipefail'];
  while (lines.join('\n').length < 12_000) {
    lines.push(`echo "configuring node ${rng.hex(8)}" >> /var/log/bootstrap.log # 설정 ${lines.length}`);
  }
  return lines.join('\n');
}
