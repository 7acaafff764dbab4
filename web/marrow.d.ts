// TypeScript declarations of marrow.mjs (docs/web.md).

export class MarrowError extends Error {}

export interface ClipInfo {
  name: string;
  duration: number;
  [key: string]: unknown;
}

export interface LoadFile {
  name: string;
  bytes: Uint8Array | ArrayBuffer;
}

export interface PlayOptions {
  weight?: number;
  loop?: boolean;
  fadeIn?: number;
  /** 0, the base; 1, the override layer of a character made with an overrideJoint. */
  layer?: number;
}

export interface MeshArrays {
  positions: Float32Array;
  normals: Float32Array;
  uvs: Float32Array;
  indices: Uint32Array;
  /** Four skin-joint indices per vertex, and their weights (the four largest, renormalized). */
  joints: Uint16Array;
  weights: Float32Array;
  skin: number;
  node: number;
  material: number;
  clampedInfluences: number;
}

export interface IkState {
  id: string;
  weight: number;
  reached: boolean;
}

export interface AnimationEventInfo {
  type: string;
  name: string;
  player: number;
  clipTime: number;
  time: number;
}

/** An animation script's setup (docs/control.md), without a timeline. */
export type CharacterSetup = Record<string, unknown>;

export interface Character {
  play(clip: string | number, options?: PlayOptions): number;
  playBlendSpace(space: string, options?: PlayOptions & { x?: number; y?: number }): number;
  setBlend(player: number, x: number, y?: number): void;
  /** One of a script's timeline entries, without "t", run now. */
  command(entry: Record<string, unknown> | string): void;
  setParameter(name: string, value: number | boolean): void;
  trigger(name: string): void;
  readonly state: string;
  setMorphWeight(target: string, weight: number, options?: { seconds?: number }): void;
  releaseMorphWeight(target: string, seconds?: number): void;
  morphWeights(): Float32Array;
  morphedMesh(mesh: number): { positions: Float32Array; normals: Float32Array | null } | null;
  setIk(id: string, constraint: Record<string, unknown>): void;
  releaseIk(id: string, seconds?: number): void;
  readonly ik: IkState[];
  events(): AnimationEventInfo[];
  stop(player: number): void;
  setWeight(player: number, weight: number): void;
  setTimeScale(player: number, scale: number): void;
  setPaused(player: number, paused: boolean): void;
  setTime(player: number, seconds: number): void;
  crossFade(from: number, to: number, seconds: number): void;
  fadeOut(player: number, seconds: number): void;
  playerTime(player: number): number;
  update(dt: number): void;
  modelMatrices(): Float32Array;
  palette(skin?: number): Float32Array;
  delete(): void;
}

export interface Asset {
  readonly name: string;
  /** What `marrow info --format json` prints for the file. */
  readonly info: Record<string, unknown>;
  readonly clips: ClipInfo[];
  readonly notes: string[];
  readonly jointCount: number;
  readonly meshCount: number;
  mesh(index: number): MeshArrays;
  image(index: number): { name: string; mimeType: string; bytes: Uint8Array | null };
  createCharacter(options?: { overrideJoint?: string; setup?: CharacterSetup }): Character;
  /** Humanoid part -> joint name ('?' when not found); throws when not a humanoid. */
  humanoid(): Record<string, string | string[]>;
  delete(): void;
}

export interface Marrow {
  readonly version: string;
  readonly simdLevel: 'wasm128' | 'scalar';
  setSimdLevel(name: 'wasm128' | 'scalar'): void;
  benchmarkCrowd(asset: Asset, options?: { clip?: string; characters?: number; seconds?: number;
                                           model?: boolean }): number;
  load(files: LoadFile[]): Asset;
}

export function createMarrow(options?: { wasmBinary?: ArrayBuffer | Uint8Array }): Promise<Marrow>;
