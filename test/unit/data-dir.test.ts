import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { removeDataDir } from '../../infra/local/data-dir';

describe('removing a throwaway DATA_DIR', () => {
  const made = (prefix: string) => fs.mkdtempSync(path.join(os.tmpdir(), prefix));

  it('removes the Postgres cluster its postgres link points to in the clusters folder, with the DATA_DIR', () => {
    const clusters = made('clusters-');
    const cluster = path.join(clusters, 'postgres-0123456789abcdef');
    fs.mkdirSync(path.join(cluster, 'base'), { recursive: true });
    const dataDir = made('data-');
    fs.symlinkSync(cluster, path.join(dataDir, 'postgres'));
    removeDataDir(dataDir, clusters);
    expect(fs.existsSync(dataDir)).toBe(false);
    expect(fs.existsSync(cluster)).toBe(false);
    expect(fs.existsSync(clusters)).toBe(true);
    fs.rmSync(clusters, { recursive: true });
  });

  it('never follows a postgres link out of the clusters folder', () => {
    const elsewhere = made('elsewhere-');
    const dataDir = made('data-');
    fs.symlinkSync(elsewhere, path.join(dataDir, 'postgres'));
    removeDataDir(dataDir, made('clusters-'));
    expect(fs.existsSync(dataDir)).toBe(false);
    expect(fs.existsSync(elsewhere)).toBe(true);
    fs.rmSync(elsewhere, { recursive: true });
  });
});
