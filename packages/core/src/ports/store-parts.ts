import { DossierError } from '../domain/errors.ts';
import type { AccountStore } from './account-store.ts';
import type { AgentStore } from './agent-store.ts';
import type { ClaimStore } from './claim-store.ts';
import type { CollectionStore } from './collection-store.ts';
import type { DocumentStore } from './document-store.ts';
import type { DuplicateStore } from './duplicate-store.ts';
import type { EnrichStore } from './enrich-store.ts';
import type { EvaluationStore } from './evaluation-store.ts';
import type { IdempotencyStore } from './idempotency-store.ts';
import type { ImageStore } from './image-store.ts';
import type { KeyStore } from './key-store.ts';
import type { MetadataStore } from './metadata-store.ts';
import type { OAuthStore } from './oauth-store.ts';
import type { PeopleStore } from './people-store.ts';
import type { ProviderKeyStore } from './provider-key-store.ts';
import type { ResearchStore, UsageStore } from './research-store.ts';
import type { SectionStore } from './section-store.ts';
import type { CollectionSourceStore, SourceDocumentStore } from './source-store.ts';
import type { TenancyStore } from './tenancy-store.ts';
import type { WebhookStore } from './webhook-store.ts';

/** The feature stores a MetadataStore is made of, by name; composeMetadataStore replaces any of them. */
export interface MetadataStoreParts {
  accounts: AccountStore;
  keys: KeyStore;
  tenancy: TenancyStore;
  people: PeopleStore;
  collections: CollectionStore;
  documents: DocumentStore;
  sections: SectionStore;
  research: ResearchStore;
  usage: UsageStore;
  providerKeys: ProviderKeyStore;
  images: ImageStore;
  enrich: EnrichStore;
  claims: ClaimStore;
  duplicates: DuplicateStore;
  agents: AgentStore;
  webhooks: WebhookStore;
  idempotency: IdempotencyStore;
  oauth: OAuthStore;
  sources: SourceDocumentStore & CollectionSourceStore;
  evaluations: EvaluationStore;
}

type PartName = keyof MetadataStoreParts;

/** Every method of each part, by name: what composeMetadataStore routes to a replacing store. */
export const STORE_PART_METHODS = {
  accounts: [
    'createAccount',
    'findAccountByEmail',
    'createOrg',
    'listOrgsForAccount',
    'setMembership',
    'getMembershipRole',
    'createProject',
    'getProject',
    'listProjects',
  ],
  keys: [
    'createApiKey',
    'findApiKeyByHash',
    'listApiKeys',
    'getApiKey',
    'revokeApiKey',
    'touchApiKey',
    'createOrgApiKey',
    'findOrgApiKeyByHash',
    'listOrgApiKeys',
    'getOrgApiKey',
  ],
  tenancy: [
    'getAccount',
    'setPasswordHash',
    'getTokenEpoch',
    'setTokenEpoch',
    'getOrg',
    'renameOrg',
    'deleteOrg',
    'renameProject',
    'deleteProject',
    'listMembers',
    'removeMembership',
  ],
  people: [
    'createInvitation',
    'getInvitation',
    'findInvitationByTokenHash',
    'listPendingInvitations',
    'listPendingInvitationsForEmail',
    'revokeInvitation',
    'acceptInvitation',
    'createSession',
    'getSession',
    'listSessions',
    'revokeSession',
    'extendSession',
    'revokeAllSessions',
    'createPasswordReset',
    'consumePasswordReset',
    'setAccountEmail',
    'findAccountIdBySsoIdentity',
    'linkSsoIdentity',
    'createSsoLogin',
    'takeSsoLogin',
  ],
  collections: ['insertCollection', 'getCollection', 'listCollections', 'updateCollection', 'collectionCounts'],
  documents: [
    'insertDocument',
    'getDocument',
    'getDocuments',
    'listDocuments',
    'findDocuments',
    'findDocumentByHash',
    'updateDocument',
    'deleteDocument',
    'tagCounts',
    'hasMetadata',
  ],
  sections: ['replaceSections', 'setSectionChunkCounts', 'listSections', 'getSections'],
  research: ['insertResearchSession', 'listResearchSessions', 'getResearchSession', 'deleteResearchSession'],
  usage: ['addUsage', 'spendIfRoom', 'usageTotals', 'usageByDay', 'sandboxTotals'],
  providerKeys: ['createProviderKey', 'listProviderKeys', 'getProviderKey', 'deleteProviderKey', 'findProviderKeyFor'],
  images: ['replaceImages', 'listImages', 'replaceTableChunks', 'listTableChunks'],
  enrich: ['setGeneratedSummary', 'resetGeneratedSummaries', 'setImageCaption', 'setTableChunkCaption', 'resetCaptions'],
  claims: [
    'replaceDocumentClaims',
    'deleteDocumentClaims',
    'listDocumentClaims',
    'listCollectionClaims',
    'deleteCollectionClaims',
    'claimCounts',
    'getClaimMap',
    'putClaimMap',
    'clearClaimMap',
    'insertContradictionRun',
    'updateContradictionRun',
    'latestContradictionRun',
    'insertContradictions',
    'listContradictions',
    'getContradiction',
    'setContradictionStatus',
  ],
  duplicates: [
    'putFingerprints',
    'putDocumentFingerprints',
    'rebuildFingerprintPostings',
    'deleteFingerprints',
    'fingerprintMatches',
    'fingerprintPairs',
    'fingerprintedDocuments',
    'insertDuplicateGroup',
    'replaceDuplicateGroup',
    'deleteDuplicateGroup',
    'getDuplicateGroup',
    'duplicateGroupOf',
    'listDuplicateGroups',
    'dismissDuplicatePairs',
    'isDismissedPair',
    'insertDuplicateRun',
    'updateDuplicateRun',
    'countDuplicateJob',
    'latestDuplicateRun',
  ],
  agents: [
    'insertAgent',
    'getAgent',
    'findAgentBySlug',
    'listAgents',
    'updateAgent',
    'deleteAgent',
    'insertAgentRun',
    'finishAgentRun',
    'getAgentRun',
    'listAgentRuns',
    'listAgentRunSteps',
    'deleteAgentRun',
    'failStaleAgentRuns',
  ],
  webhooks: [
    'updateDocumentWithEvents',
    'recordEvents',
    'insertWebhookEndpoint',
    'getWebhookEndpoint',
    'listWebhookEndpoints',
    'updateWebhookEndpoint',
    'deleteWebhookEndpoint',
    'insertWebhookDelivery',
    'getWebhookDelivery',
    'listWebhookDeliveries',
    'listDueWebhookDeliveries',
    'markWebhookDeliveriesQueued',
    'recordWebhookAttempt',
    'failWebhookDelivery',
    'resetWebhookDelivery',
    'listWebhookAttempts',
  ],
  idempotency: ['claimIdempotencyKey', 'completeIdempotencyKey', 'releaseIdempotencyKey'],
  oauth: [
    'createOAuthClient',
    'getOAuthClient',
    'createOAuthCode',
    'consumeOAuthCode',
    'createOAuthGrant',
    'getOAuthGrant',
    'listOAuthGrants',
    'revokeOAuthGrant',
    'findOAuthToken',
    'rotateOAuthRefreshToken',
    'revokeOAuthToken',
    'touchOAuthGrant',
    'pruneOAuthRows',
  ],
  sources: [
    'findDocumentBySourcePath',
    'listSourceManifest',
    'listSoftDeletedDocuments',
    'insertSource',
    'getSource',
    'listSources',
    'updateSource',
    'lockSource',
    'unlockSource',
    'deleteSource',
    'insertSourceRun',
    'updateSourceRun',
    'listSourceRuns',
  ],
  evaluations: [
    'insertGoldenSet',
    'getGoldenSet',
    'listGoldenSets',
    'deleteGoldenSet',
    'insertEvaluationRun',
    'updateEvaluationRun',
    'getEvaluationRun',
    'listEvaluationRuns',
    'getEvaluationGuard',
    'putEvaluationGuard',
    'deleteEvaluationGuard',
    'insertGoldenProposals',
    'getGoldenProposal',
    'listGoldenProposals',
    'decideGoldenProposal',
  ],
} as const satisfies { [P in PartName]: readonly (keyof MetadataStoreParts[P])[] };

/** The methods a part's list leaves out: the build fails below, naming them, when a store interface gains one. */
type Unlisted = { [P in PartName]: Exclude<keyof MetadataStoreParts[P], (typeof STORE_PART_METHODS)[P][number]> }[PartName];
const everyMethodListed: [Unlisted] extends [never] ? true : Unlisted = true;
void everyMethodListed;

/**
 * A MetadataStore whose named parts are served by stores of your own, the rest (and migrate, close, sizeBytes) by
 * `base`. A replacing store keeps its own rows, so replace a part no other part reads or writes in the same
 * transaction (idempotency, OAuth, research sessions…); webhooks record events with document updates, and deleting a
 * project removes its keys and grants, only within one database.
 */
export function composeMetadataStore(base: MetadataStore, parts: Partial<MetadataStoreParts>): MetadataStore {
  // The table above is checked against the interfaces, so every method of MetadataStore is set on `composed`.
  const composed: Record<string, unknown> = { migrate: () => base.migrate(), close: () => base.close(), sizeBytes: () => base.sizeBytes() };
  for (const [part, methods] of Object.entries(STORE_PART_METHODS) as [PartName, readonly string[]][]) {
    const owner = (parts[part] ?? base) as unknown as Record<string, unknown>;
    for (const method of methods) {
      const fn = owner[method];
      if (typeof fn !== 'function') throw new DossierError('invalid_input', `The ${part} store given to composeMetadataStore has no method ${method}`);
      composed[method] = fn.bind(owner);
    }
  }
  return composed as unknown as MetadataStore;
}
