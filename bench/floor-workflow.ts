import { condition, defineUpdate, proxyLocalActivities, setHandler } from '@temporalio/workflow';

/*
 * The floor of an order through an intake workflow (bench/floor.ts): a long-running
 * workflow that answers an Update at once (`ping`), or after one local activity that does nothing
 * (`pingLocal`, the shape of the intake's placing without its transaction). What Temporal and a
 * worker cost for one Update-with-Start round trip, with nothing of ours on the path.
 */

export const pingUpdate = defineUpdate<number, [number]>('ping');
export const pingLocalUpdate = defineUpdate<number, [number]>('pingLocal');

export interface FloorActivities {
  nothing(n: number): Promise<number>;
}

const { nothing } = proxyLocalActivities<FloorActivities>({ startToCloseTimeout: '10s' });

export async function floorWorkflow(): Promise<void> {
  setHandler(pingUpdate, (n) => n);
  setHandler(pingLocalUpdate, (n) => nothing(n));
  await condition(() => false);
}
