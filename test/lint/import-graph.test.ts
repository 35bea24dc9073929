import path from 'node:path';
import madge from 'madge';

/*
 * The floor plan's shape, read off the import graph (docs/architecture.md): no import circle, and
 * no two top-level folders that import each other — but workflows/ ⇄ activities/, where workflows
 * import activity *types* only (the Temporal idiom: `proxyActivities<Activities>`).
 */

const root = path.join(__dirname, '..', '..');
const FOLDERS = [
  'domain',
  'platform',
  'store',
  'schemas',
  'services',
  'workflows',
  'activities',
  'worker',
  'api',
  'infra',
  'main',
  'bench',
];

// Each graph is read once for the file's tests (madge parses every source: ~9 s of CPU a read).
const graphs = new Map<boolean, ReturnType<typeof madge>>();
function graph(skipTypeImports: boolean) {
  if (!graphs.has(skipTypeImports)) graphs.set(skipTypeImports, readGraph(skipTypeImports));
  return graphs.get(skipTypeImports)!;
}

function readGraph(skipTypeImports: boolean) {
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

  test('no product folder imports the composition layer (main/); bench/ and test/ only through main/index.ts', async () => {
    const deps = (await graph(false)).obj();
    const intoMain = Object.entries(deps).flatMap(([file, imports]) =>
      file.startsWith('main/') ? [] : imports.filter((i) => i.startsWith('main/')).map((i) => `${file} -> ${i}`),
    );
    expect(intoMain.filter((e) => !/^(bench|test)\/[^ ]+ -> main\/index\.ts$/.test(e))).toEqual([]);
  });
});
