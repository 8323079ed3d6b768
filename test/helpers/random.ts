/** A seeded pseudo-random source (mulberry32) and pickers, for generated test inputs. */
export function seededRandom(seed: number) {
  let state = seed;
  const random = () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  /** An integer from 0 up to, not including, `bound`. */
  const below = (bound: number) => Math.floor(random() * bound);
  return { random, pick, below };
}
