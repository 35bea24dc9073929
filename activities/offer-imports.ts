import { Context } from '@temporalio/activity';
import type { ActivityDeps } from './deps';
import { Failure } from '../domain/failures';
import { derivedId } from '../store/ids';
import { finishOfferImport, pendingImportLines, recordImportLine } from '../store/offer-imports';
import type { OfferCreate } from '../schemas/offer-create';

/*
 * The offer import's steps (workflows/offer-import.ts). An offer is made by the same service
 * function as POST /offers (services/offers.ts `createOffer`, handed in as `deps.offerCreation`
 * by main/wiring.ts: activities do not import services), under an id derived from the import and
 * the line, so a retried batch finds the offers it made instead of making them again.
 */

export function createOfferImportActivities(deps: Pick<ActivityDeps, 'db' | 'offerCreation'>) {
  return {
    /** Creates up to `limit` pending lines' offers after `afterLine`; answers how many lines it took and the last. */
    async createImportedOffers(a: {
      importId: string;
      clientId: string;
      afterLine: number;
      limit: number;
    }): Promise<{ lines: number; lastLine: number }> {
      const create = deps.offerCreation;
      if (!create) throw new Error('this worker was started without offer creation (main/wiring.ts connectServices)');
      const lines = await pendingImportLines(deps.db, a.importId, a.afterLine, a.limit);
      for (const l of lines) {
        const offerId = derivedId('ofr', `offer-import:${a.importId}:${l.line}`);
        try {
          await create(a.clientId, l.offer as OfferCreate, offerId);
          await recordImportLine(deps.db, a.importId, l.line, { offerId });
        } catch (err) {
          // A refusal is the line's answer, as POST /offers would give it; an outage is retried.
          if (!(err instanceof Failure) || err.code === 'backend_unavailable') throw err;
          await recordImportLine(deps.db, a.importId, l.line, { errors: err.details });
        }
        Context.current().heartbeat(l.line);
      }
      return { lines: lines.length, lastLine: lines.at(-1)?.line ?? a.afterLine };
    },

    /** Ends the import (its event appended once). */
    async finishOfferImport(a: { importId: string; status: 'completed' | 'failed' }): Promise<void> {
      await finishOfferImport(deps.db, a.importId, a.status);
    },
  };
}
