import { FREE_PORT_RANGE, freePort, portIsFree } from '../../platform/free-port';

describe('freePort', () => {
  afterEach(() => jest.restoreAllMocks());

  it('never hands out a port twice on this machine within its reservation, though nothing listens on it yet', async () => {
    // The first call gets a port; then every try lands on that port, which it sees reserved, not bound.
    // (A port picked by the test instead could be one another process reserved a moment ago.)
    const port = await freePort();
    expect(await portIsFree(port)).toBe(true);
    const { low, high } = FREE_PORT_RANGE;
    jest.spyOn(Math, 'random').mockReturnValue((port - low + 0.5) / (high - low));
    await expect(freePort()).rejects.toThrow(/no free port/);
  });

  it('hands out distinct free ports', async () => {
    const ports = await Promise.all(Array.from({ length: 20 }, () => freePort()));
    expect(new Set(ports).size).toBe(20);
  });
});
