import path from 'node:path';
import madge from 'madge';

/*
 * The floor plan's shape, read off the import graph (docs/architecture.md): no import circle, and
 * no two top-level folders that import each other — but workflows/ ⇄ activities/, where workflows
 * import activity *types* only (the Temporal idiom: `proxyActivities<Activities>`).
 */

const root = path.join(__dirname, '..', '..');
const FOLDERS = ['domain', 'platform', 'store', 'schemas', 'services', 'workflows', 'activities', 'worker', 'api', 'devstack', 'main'];

async function graph(skipTypeImports: boolean) {
  return madge(
    FOLDERS.map((f) => path.join(root, f)),
    {
      baseDir: root,
      fileExtensions: ['ts'],
      tsConfig: path.join(root, 'tsconfig.json'),
      detectiveOptions: { ts: { skipTypeImports }, tsx: { skipTypeImports } },
    },
  );
}

/** Each pair of top-level folders joined by an import, as `from -> to`. */
function folderEdges(deps: Record<string, string[]>): Set<string> {
  const top = (file: string) => file.split('/')[0];
  const edges = new Set<string>();
  for (const [file, imports] of Object.entries(deps)) {
    for (const imported of imports) if (top(file) !== top(imported)) edges.add(`${top(file)} -> ${top(imported)}`);
  }
  return edges;
}

const twoWay = (edges: Set<string>) =>
  [...edges].filter((e) => {
    const [a, b] = e.split(' -> ');
    return a < b && edges.has(`${b} -> ${a}`);
  });

describe('the import graph', () => {
  test('has no circle', async () => {
    expect((await graph(false)).circular()).toEqual([]);
  });

  test('joins no two folders both ways but workflows ⇄ activities', async () => {
    expect(twoWay(folderEdges((await graph(false)).obj()))).toEqual(['activities -> workflows']);
  });

  test('workflows import nothing of activities but their types', async () => {
    const values = folderEdges((await graph(true)).obj());
    expect(values.has('workflows -> activities')).toBe(false);
    expect(twoWay(values)).toEqual([]);
  });

  test('nothing imports the composition layer (main/)', async () => {
    expect([...folderEdges((await graph(false)).obj())].filter((e) => e.endsWith('-> main'))).toEqual([]);
  });
});
