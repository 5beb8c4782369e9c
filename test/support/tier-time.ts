// A vitest reporter that prints, per tier (project), how many files ran and the time from the
// run's start to that tier's last file: "unit tier: 45 files, 12.3 s" (run alone, that is the
// tier's wall time, start-up included); and per area of the system tier (its folder under
// test/system/), the files and the sum of their durations: "system/focus: 9 files, 81.0 s of test
// time" (on one worker, the system tier's, about what the area takes run alone, plus start-up).
import type { Reporter, TestModule } from 'vitest/node';

/** The area of a system-tier file: its folder under test/system/, else undefined. */
export function areaOf(file: string): string | undefined {
  return /\/test\/system\/([^/]+)\//.exec(file.replaceAll('\\', '/'))?.[1];
}

export default class TierTime implements Reporter {
  private start = performance.now();
  private readonly tiers = new Map<string, { files: number; end: number }>();
  private readonly areas = new Map<string, { files: number; ms: number }>();

  onInit(): void {
    this.start = performance.now();
  }

  onTestModuleEnd(module: TestModule): void {
    const name = module.project.name || 'tests';
    const tier = this.tiers.get(name) ?? { files: 0, end: 0 };
    this.tiers.set(name, { files: tier.files + 1, end: performance.now() });
    const area = areaOf(module.moduleId);
    if (area === undefined) return;
    const seen = this.areas.get(area) ?? { files: 0, ms: 0 };
    this.areas.set(area, { files: seen.files + 1, ms: seen.ms + module.diagnostic().duration });
  }

  onTestRunEnd(): void {
    for (const [name, { files, end }] of this.tiers) {
      const seconds = ((end - this.start) / 1000).toFixed(1);
      process.stdout.write(`${name} tier: ${files} files, ${seconds} s\n`);
    }
    for (const [area, { files, ms }] of [...this.areas].sort(([a], [b]) => a.localeCompare(b))) {
      process.stdout.write(`system/${area}: ${files} files, ${(ms / 1000).toFixed(1)} s of test time\n`);
    }
  }
}
