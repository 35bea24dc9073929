import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { removeDataDir, secureDataDir } from '../../infra/local/data-dir';

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

describe('an owner-only DATA_DIR (issue 43 item 8)', () => {
  const mode = (p: string) => fs.statSync(p).mode & 0o777;

  it('takes group and other rights off what a previous run left, never following a link', () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'data-'));
    fs.chmodSync(dataDir, 0o755);
    fs.writeFileSync(path.join(dataDir, 'temporal.db'), 'codes', { mode: 0o644 });
    fs.mkdirSync(path.join(dataDir, 'versitygw', 'bucket'), { recursive: true, mode: 0o755 });
    fs.writeFileSync(path.join(dataDir, 'versitygw', 'bucket', 'export.csv'), 'names', { mode: 0o666 });
    fs.writeFileSync(path.join(dataDir, 'run.sh'), '', { mode: 0o755 });
    const outside = fs.mkdtempSync(path.join(os.tmpdir(), 'outside-'));
    fs.writeFileSync(path.join(outside, 'shared'), '', { mode: 0o644 });
    fs.symlinkSync(path.join(outside, 'shared'), path.join(dataDir, 'link'));

    secureDataDir(dataDir);
    expect(mode(dataDir)).toBe(process.getuid?.() === 0 && fs.existsSync(path.join(dataDir, 'postgres')) ? 0o711 : 0o700);
    expect(mode(path.join(dataDir, 'temporal.db'))).toBe(0o600);
    expect(mode(path.join(dataDir, 'versitygw'))).toBe(0o700);
    expect(mode(path.join(dataDir, 'versitygw', 'bucket'))).toBe(0o700);
    expect(mode(path.join(dataDir, 'versitygw', 'bucket', 'export.csv'))).toBe(0o600);
    expect(mode(path.join(dataDir, 'run.sh'))).toBe(0o700);
    expect(mode(path.join(outside, 'shared'))).toBe(0o644);
    fs.rmSync(dataDir, { recursive: true });
    fs.rmSync(outside, { recursive: true });
  });

  it('leaves a Postgres cluster inside DATA_DIR to Postgres, and lets the postgres user walk to it when root runs it', () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'data-'));
    fs.mkdirSync(path.join(dataDir, 'postgres'), { mode: 0o750 });
    fs.chmodSync(path.join(dataDir, 'postgres'), 0o750);
    secureDataDir(dataDir);
    expect(mode(path.join(dataDir, 'postgres'))).toBe(0o750);
    expect(mode(dataDir)).toBe(process.getuid?.() === 0 ? 0o711 : 0o700);
    fs.rmSync(dataDir, { recursive: true });
  });
});
