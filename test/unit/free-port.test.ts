import { freePort, portIsFree } from '../../platform/free-port';

describe('freePort', () => {
  afterEach(() => jest.restoreAllMocks());

  it('never hands out a port twice on this machine within its reservation, though nothing listens on it yet', async () => {
    // Every try lands on one port: the first call gets it; the second sees it reserved, not bound.
    jest.spyOn(Math, 'random').mockReturnValue((process.pid % 997) / 997);
    const port = await freePort();
    expect(await portIsFree(port)).toBe(true);
    await expect(freePort()).rejects.toThrow(/no free port/);
  });

  it('hands out distinct free ports', async () => {
    const ports = await Promise.all(Array.from({ length: 20 }, () => freePort()));
    expect(new Set(ports).size).toBe(20);
  });
});
