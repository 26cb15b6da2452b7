/** A small seeded PRNG (mulberry32): the same seed gives the same world, on every machine. */
export interface Random {
  /** Uniform in [0, 1). */
  next(): number
  int(minInclusive: number, maxInclusive: number): number
  pick<T>(items: readonly T[]): T
  bytes(length: number): Buffer
  uuid(): string
}

export function createRandom(seed: number): Random {
  let state = seed >>> 0
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
  const int = (min: number, max: number) => min + Math.floor(next() * (max - min + 1))
  const bytes = (length: number) => {
    const out = Buffer.alloc(length)
    for (let i = 0; i < length; i++) out[i] = int(0, 255)
    return out
  }
  return {
    next,
    int,
    pick: <T>(items: readonly T[]): T => items[int(0, items.length - 1)] as T,
    bytes,
    uuid() {
      const b = bytes(16)
      b[6] = ((b[6] as number) & 0x0f) | 0x40
      b[8] = ((b[8] as number) & 0x3f) | 0x80
      const hex = b.toString('hex')
      return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`
    },
  }
}

/** A PRNG for one purpose, derived from the world seed, so that adding draws elsewhere never shifts it. */
export function deriveRandom(seed: number, label: string): Random {
  let h = 2166136261 ^ seed
  for (let i = 0; i < label.length; i++) h = Math.imul(h ^ label.charCodeAt(i), 16777619)
  return createRandom(h >>> 0)
}
