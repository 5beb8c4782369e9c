// A vitest reporter that prints, per project (test tier), how many files ran and the time from the
// run's start to that tier's last file: "unit tier: 21 files, 12.3 s". Run alone
// (`--project unit`), that is the tier's wall time, start-up included.
import type { Reporter, TestModule } from 'vitest/node';

export default class TierTime implements Reporter {
  private start = performance.now();
  private readonly tiers = new Map<string, { files: number; end: number }>();

  onInit(): void {
    this.start = performance.now();
  }

  onTestModuleEnd(module: TestModule): void {
    const name = module.project.name || 'tests';
    const tier = this.tiers.get(name) ?? { files: 0, end: 0 };
    this.tiers.set(name, { files: tier.files + 1, end: performance.now() });
  }

  onTestRunEnd(): void {
    for (const [name, { files, end }] of this.tiers) {
      const seconds = ((end - this.start) / 1000).toFixed(1);
      process.stdout.write(`${name} tier: ${files} files, ${seconds} s\n`);
    }
  }
}
