// A least-recently-used cache bounded by total weight (rows held), never below one entry.

export class Lru<V> {
  private readonly entries = new Map<string, { value: V; weight: number }>();
  private weight = 0;

  constructor(private readonly maxWeight: number) {}

  get(key: string): V | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    this.entries.delete(key);
    this.entries.set(key, entry);
    return entry.value;
  }

  set(key: string, value: V, weight: number): void {
    const old = this.entries.get(key);
    if (old) {
      this.weight -= old.weight;
      this.entries.delete(key);
    }
    this.entries.set(key, { value, weight });
    this.weight += weight;
    for (const [oldest, entry] of this.entries) {
      if (this.weight <= this.maxWeight || this.entries.size <= 1) break;
      this.entries.delete(oldest);
      this.weight -= entry.weight;
    }
  }

  clear(): void {
    this.entries.clear();
    this.weight = 0;
  }
}
