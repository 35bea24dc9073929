// The stack lane's runner (jest-light-runner) loads test files with Node's own module loader, not
// jest's transform: tsx compiles TypeScript for it, for `import` and `require` alike, as `node
// --import tsx` does for the servers the tests start (docs/decisions/0082-stack-lane-keeps-its-modules.md).
require('tsx/cjs/api').register();
module.exports = async () => {
  const { register } = await import('tsx/esm/api');
  register();
};
