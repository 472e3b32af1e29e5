import type { MetadataStore } from '@dossier/core';
import * as agents from './agent-queries.ts';
import * as sources from './source-queries.ts';
import * as agentRuns from './agent-run-queries.ts';
import * as claims from './claim-queries.ts';
import * as collections from './collection-queries.ts';
import type { StoreContext } from './dialect.ts';
import * as documents from './document-queries.ts';
import * as duplicates from './duplicate-queries.ts';
import * as enrich from './enrich-queries.ts';
import * as evaluations from './evaluation-queries.ts';
import * as images from './image-queries.ts';
import * as idempotency from './idempotency-queries.ts';
import * as keys from './key-queries.ts';
import * as oauth from './oauth-queries.ts';
import * as people from './people-queries.ts';
import * as tenancyAdmin from './tenancy-admin-queries.ts';
import * as providerKeys from './provider-key-queries.ts';
import * as research from './research-queries.ts';
import * as sections from './section-queries.ts';
import * as tenancy from './tenancy-queries.ts';
import * as webhooks from './webhook-queries.ts';

/** How a dialect applies its migrations and releases its connections. */
export interface StoreLifecycle {
  migrate(): Promise<void>;
  close(): Promise<void>;
}

/** A MetadataStore over any Kysely database whose dialect supplies the few JSON and encoding bits. */
export function createKyselyMetadataStore(ctx: StoreContext, lifecycle: StoreLifecycle): MetadataStore {
  return {
    migrate: () => lifecycle.migrate(),
    close: () => lifecycle.close(),
    sizeBytes: () => ctx.dialect.sizeBytes(ctx.db),

    createAccount: (account) => tenancy.createAccount(ctx, account),
    findAccountByEmail: (email) => tenancy.findAccountByEmail(ctx, email),
    createOrg: (org, accountId, role) => tenancy.createOrg(ctx, org, accountId, role),
    listOrgsForAccount: (accountId) => tenancy.listOrgsForAccount(ctx, accountId),
    setMembership: (orgId, accountId, role) => tenancy.setMembership(ctx, orgId, accountId, role),
    getMembershipRole: (orgId, accountId) => tenancy.getMembershipRole(ctx, orgId, accountId),
    getAccount: (id) => tenancyAdmin.getAccount(ctx, id),
    setPasswordHash: (accountId, hash) => tenancyAdmin.setPasswordHash(ctx, accountId, hash),
    getTokenEpoch: (accountId) => tenancyAdmin.getTokenEpoch(ctx, accountId),
    setTokenEpoch: (accountId, at) => tenancyAdmin.setTokenEpoch(ctx, accountId, at),
    getOrg: (id) => tenancyAdmin.getOrg(ctx, id),
    renameOrg: (id, name) => tenancyAdmin.renameOrg(ctx, id, name),
    deleteOrg: (id) => tenancyAdmin.deleteOrg(ctx, id),
    renameProject: (id, name) => tenancyAdmin.renameProject(ctx, id, name),
    deleteProject: (id) => tenancyAdmin.deleteProject(ctx, id),
    listMembers: (orgId) => tenancyAdmin.listMembers(ctx, orgId),
    removeMembership: (orgId, accountId) => tenancyAdmin.removeMembership(ctx, orgId, accountId),
    claimIdempotencyKey: (record, staleBefore) => idempotency.claimIdempotencyKey(ctx, record, staleBefore),
    completeIdempotencyKey: (scope, key, status, body) => idempotency.completeIdempotencyKey(ctx, scope, key, status, body),
    releaseIdempotencyKey: (scope, key) => idempotency.releaseIdempotencyKey(ctx, scope, key),
    createOAuthClient: (client) => oauth.createOAuthClient(ctx, client),
    getOAuthClient: (id) => oauth.getOAuthClient(ctx, id),
    createOAuthCode: (code) => oauth.createOAuthCode(ctx, code),
    consumeOAuthCode: (codeHash, at) => oauth.consumeOAuthCode(ctx, codeHash, at),
    createOAuthGrant: (grant, tokens) => oauth.createOAuthGrant(ctx, grant, tokens),
    getOAuthGrant: (id) => oauth.getOAuthGrant(ctx, id),
    listOAuthGrants: (projectId, now) => oauth.listOAuthGrants(ctx, projectId, now),
    revokeOAuthGrant: (id, at) => oauth.revokeOAuthGrant(ctx, id, at),
    findOAuthToken: (tokenHash) => oauth.findOAuthToken(ctx, tokenHash),
    rotateOAuthRefreshToken: (tokenHash, at, next, grantExpiresAt) => oauth.rotateOAuthRefreshToken(ctx, tokenHash, at, next, grantExpiresAt),
    revokeOAuthToken: (tokenHash, at) => oauth.revokeOAuthToken(ctx, tokenHash, at),
    touchOAuthGrant: (id, at) => oauth.touchOAuthGrant(ctx, id, at),
    pruneOAuthRows: (before) => oauth.pruneOAuthRows(ctx, before),
    listApiKeys: (projectId) => keys.listApiKeys(ctx, projectId),
    getApiKey: (id) => keys.getApiKey(ctx, id),
    revokeApiKey: (id, at) => keys.revokeApiKey(ctx, id, at),
    touchApiKey: (id, at) => keys.touchApiKey(ctx, id, at),
    createOrgApiKey: (key) => keys.createOrgApiKey(ctx, key),
    findOrgApiKeyByHash: (hash) => keys.findOrgApiKeyByHash(ctx, hash),
    listOrgApiKeys: (orgId) => keys.listOrgApiKeys(ctx, orgId),
    getOrgApiKey: (id) => keys.getOrgApiKey(ctx, id),
    createProject: (project) => tenancy.createProject(ctx, project),
    getProject: (id) => tenancy.getProject(ctx, id),
    listProjects: (orgId) => tenancy.listProjects(ctx, orgId),
    createApiKey: (key) => tenancy.createApiKey(ctx, key),
    findApiKeyByHash: (keyHash) => tenancy.findApiKeyByHash(ctx, keyHash),

    insertCollection: (collection) => collections.insertCollection(ctx, collection),
    getCollection: (id) => collections.getCollection(ctx, id),
    listCollections: (projectId, env) => collections.listCollections(ctx, projectId, env),
    updateCollection: (id, patch) => collections.updateCollection(ctx, id, patch),
    collectionCounts: (collectionId) => collections.collectionCounts(ctx, collectionId),

    insertDocument: (doc) => documents.insertDocument(ctx, doc),
    getDocument: (id) => documents.getDocument(ctx, id),
    getDocuments: (ids) => documents.getDocuments(ctx, ids),
    listDocuments: (collectionId, q) => documents.listDocuments(ctx, collectionId, q),
    findDocuments: (collectionId, filter) => documents.findDocuments(ctx, collectionId, filter),
    findDocumentByHash: (collectionId, hash) => documents.findDocumentByHash(ctx, collectionId, hash),
    updateDocument: (id, patch) => documents.updateDocument(ctx, id, patch),
    deleteDocument: (id) => documents.deleteDocument(ctx, id),
    tagCounts: (collectionId) => ctx.dialect.tagCounts(ctx.db, collectionId),
    hasMetadata: (collectionId) => documents.hasMetadata(ctx, collectionId),
    findDocumentBySourcePath: (collectionId, sourcePath) => documents.findDocumentBySourcePath(ctx, collectionId, sourcePath),
    listSourceManifest: (collectionId, after, limit, prefix) => documents.listSourceManifest(ctx, collectionId, after, limit, prefix),
    listSoftDeletedDocuments: (before, limit) => documents.listSoftDeletedDocuments(ctx, before, limit),
    insertSource: (source) => sources.insertSource(ctx, source),
    getSource: (id) => sources.getSource(ctx, id),
    listSources: (collectionIds) => sources.listSources(ctx, collectionIds),
    updateSource: (id, patch) => sources.updateSource(ctx, id, patch),
    deleteSource: (id) => sources.deleteSource(ctx, id),
    insertSourceRun: (run) => sources.insertSourceRun(ctx, run),
    updateSourceRun: (id, patch) => sources.updateSourceRun(ctx, id, patch),
    listSourceRuns: (sourceId, limit) => sources.listSourceRuns(ctx, sourceId, limit),

    replaceSections: (documentId, rows) => sections.replaceSections(ctx, documentId, rows),
    setSectionChunkCounts: (counts) => sections.setSectionChunkCounts(ctx, counts),
    listSections: (documentId) => sections.listSections(ctx, documentId),
    getSections: (ids) => sections.getSections(ctx, ids),

    insertResearchSession: (session, events = []) => webhooks.writeWithEvents(ctx, events, (inTx) => research.insertResearchSession(inTx, session)),
    listResearchSessions: (collectionId, limit) => research.listResearchSessions(ctx, collectionId, limit),
    getResearchSession: (id) => research.getResearchSession(ctx, id),
    deleteResearchSession: (id) => research.deleteResearchSession(ctx, id),
    addUsage: (projectId, env, meter, amount, at) => research.addUsage(ctx, projectId, env, meter, amount, at),
    spendIfRoom: (projectId, env, meter, amount, cap, since, at) => research.spendIfRoom(ctx, projectId, env, meter, amount, cap, since, at),
    usageTotals: (projectId, env, since) => research.usageTotals(ctx, projectId, env, since),
    sandboxTotals: (projectId, env) => research.sandboxTotals(ctx, projectId, env),

    createProviderKey: (key) => providerKeys.createProviderKey(ctx, key),
    listProviderKeys: (projectId, env) => providerKeys.listProviderKeys(ctx, projectId, env),
    getProviderKey: (id) => providerKeys.getProviderKey(ctx, id),
    deleteProviderKey: (id) => providerKeys.deleteProviderKey(ctx, id),
    findProviderKeyFor: (projectId, env, provider) => providerKeys.findProviderKeyFor(ctx, projectId, env, provider),

    replaceImages: (documentId, rows) => images.replaceImages(ctx, documentId, rows),
    listImages: (documentId) => images.listImages(ctx, documentId),
    replaceTableChunks: (documentId, rows) => images.replaceTableChunks(ctx, documentId, rows),
    listTableChunks: (documentId) => images.listTableChunks(ctx, documentId),

    replaceDocumentClaims: (documentId, rows) => claims.replaceDocumentClaims(ctx, documentId, rows),
    deleteDocumentClaims: (documentId) => claims.deleteDocumentClaims(ctx, documentId),
    listDocumentClaims: (documentId, minImportance) => claims.listDocumentClaims(ctx, documentId, minImportance),
    listCollectionClaims: (collectionId) => claims.listCollectionClaims(ctx, collectionId),
    deleteCollectionClaims: (collectionId) => claims.deleteCollectionClaims(ctx, collectionId),
    claimCounts: (collectionId) => claims.claimCounts(ctx, collectionId),
    getClaimMap: (collectionId, version) => claims.getClaimMap(ctx, collectionId, version),
    putClaimMap: (collectionId, version, items) => claims.putClaimMap(ctx, collectionId, version, items),
    clearClaimMap: (collectionId) => claims.clearClaimMap(ctx, collectionId),
    insertContradictionRun: (run) => claims.insertContradictionRun(ctx, run),
    updateContradictionRun: (id, patch, events = []) => webhooks.writeWithEvents(ctx, events, (inTx) => claims.updateContradictionRun(inTx, id, patch)),
    latestContradictionRun: (collectionId) => claims.latestContradictionRun(ctx, collectionId),
    insertContradictions: (rows) => claims.insertContradictions(ctx, rows),
    listContradictions: (collectionId, filter, limit) => claims.listContradictions(ctx, collectionId, filter, limit),
    getContradiction: (id) => claims.getContradiction(ctx, id),
    setContradictionStatus: (id, status) => claims.setContradictionStatus(ctx, id, status),

    putFingerprints: (entry) => duplicates.putFingerprints(ctx, entry),
    deleteFingerprints: (documentId) => duplicates.deleteFingerprints(ctx, documentId),
    fingerprintMatches: (collectionId, documentId, fingerprints, maxPosting) => duplicates.fingerprintMatches(ctx, collectionId, documentId, fingerprints, maxPosting),
    fingerprintPairs: (collectionId, minShared, maxPosting) => duplicates.fingerprintPairs(ctx, collectionId, minShared, maxPosting),
    fingerprintedDocuments: (collectionId) => duplicates.fingerprintedDocuments(ctx, collectionId),
    insertDuplicateGroup: (group) => duplicates.insertDuplicateGroup(ctx, group),
    replaceDuplicateGroup: (group) => duplicates.replaceDuplicateGroup(ctx, group),
    deleteDuplicateGroup: (id) => duplicates.deleteDuplicateGroup(ctx, id),
    getDuplicateGroup: (id) => duplicates.getDuplicateGroup(ctx, id),
    duplicateGroupOf: (documentId) => duplicates.duplicateGroupOf(ctx, documentId),
    listDuplicateGroups: (collectionId, limit, offset) => duplicates.listDuplicateGroups(ctx, collectionId, limit, offset),
    dismissDuplicatePairs: (collectionId, documentIds) => duplicates.dismissDuplicatePairs(ctx, collectionId, documentIds),
    isDismissedPair: (left, right) => duplicates.isDismissedPair(ctx, left, right),
    insertDuplicateRun: (run) => duplicates.insertDuplicateRun(ctx, run),
    updateDuplicateRun: (id, patch, events = []) => webhooks.writeWithEvents(ctx, events, (inTx) => duplicates.updateDuplicateRun(inTx, id, patch)),
    countDuplicateJob: (id) => duplicates.countDuplicateJob(ctx, id),
    latestDuplicateRun: (collectionId) => duplicates.latestDuplicateRun(ctx, collectionId),

    insertAgent: (agent) => agents.insertAgent(ctx, agent),
    getAgent: (id) => agents.getAgent(ctx, id),
    findAgentBySlug: (projectId, slug) => agents.findAgentBySlug(ctx, projectId, slug),
    listAgents: (projectId, page) => agents.listAgents(ctx, projectId, page),
    updateAgent: (id, patch) => agents.updateAgent(ctx, id, patch),
    deleteAgent: (id) => agents.deleteAgent(ctx, id),
    insertAgentRun: (run) => agentRuns.insertAgentRun(ctx, run),
    finishAgentRun: (run, steps, events = []) => agentRuns.finishAgentRun(ctx, run, steps, events),
    getAgentRun: (id) => agentRuns.getAgentRun(ctx, id),
    listAgentRuns: (agentId, page) => agentRuns.listAgentRuns(ctx, agentId, page),
    listAgentRunSteps: (runId, page) => agentRuns.listAgentRunSteps(ctx, runId, page),
    deleteAgentRun: (id) => agentRuns.deleteAgentRun(ctx, id),
    failStaleAgentRuns: (before, error) => agentRuns.failStaleAgentRuns(ctx, before, error),

    setGeneratedSummary: (sectionId, summary) => enrich.setGeneratedSummary(ctx, sectionId, summary),
    resetGeneratedSummaries: (collectionId) => enrich.resetGeneratedSummaries(ctx, collectionId),
    setImageCaption: (imageId, caption) => enrich.setImageCaption(ctx, imageId, caption),
    setTableChunkCaption: (chunkId, caption) => enrich.setTableChunkCaption(ctx, chunkId, caption),
    resetCaptions: (collectionId) => enrich.resetCaptions(ctx, collectionId),

    updateDocumentWithEvents: (id, patch, events) => webhooks.updateDocumentWithEvents(ctx, id, patch, events),
    recordEvents: (events) => webhooks.recordEvents(ctx, events),
    insertWebhookEndpoint: (endpoint) => webhooks.insertWebhookEndpoint(ctx, endpoint),
    getWebhookEndpoint: (id) => webhooks.getWebhookEndpoint(ctx, id),
    listWebhookEndpoints: (projectId) => webhooks.listWebhookEndpoints(ctx, projectId),
    updateWebhookEndpoint: (id, patch) => webhooks.updateWebhookEndpoint(ctx, id, patch),
    deleteWebhookEndpoint: (id) => webhooks.deleteWebhookEndpoint(ctx, id),
    getWebhookDelivery: (id) => webhooks.getWebhookDelivery(ctx, id),
    listWebhookDeliveries: (endpointId, limit) => webhooks.listWebhookDeliveries(ctx, endpointId, limit),
    listDueWebhookDeliveries: (now, staleBefore, limit) => webhooks.listDueWebhookDeliveries(ctx, now, staleBefore, limit),
    markWebhookDeliveriesQueued: (queued) => webhooks.markWebhookDeliveriesQueued(ctx, queued),
    recordWebhookAttempt: (outcome) => webhooks.recordWebhookAttempt(ctx, outcome),
    failWebhookDelivery: (id, reason) => webhooks.failWebhookDelivery(ctx, id, reason),
    resetWebhookDelivery: (id, now) => webhooks.resetWebhookDelivery(ctx, id, now),
    listWebhookAttempts: (ids) => webhooks.listWebhookAttempts(ctx, ids),

    createInvitation: (invitation) => people.createInvitation(ctx, invitation),
    getInvitation: (id) => people.getInvitation(ctx, id),
    findInvitationByTokenHash: (tokenHash) => people.findInvitationByTokenHash(ctx, tokenHash),
    listPendingInvitations: (orgId, now) => people.listPendingInvitations(ctx, orgId, now),
    listPendingInvitationsForEmail: (email, now) => people.listPendingInvitationsForEmail(ctx, email, now),
    revokeInvitation: (id, at) => people.revokeInvitation(ctx, id, at),
    acceptInvitation: (id, at) => people.acceptInvitation(ctx, id, at),
    createSession: (session) => people.createSession(ctx, session),
    getSession: (id) => people.getSession(ctx, id),
    listSessions: (accountId, now) => people.listSessions(ctx, accountId, now),
    revokeSession: (accountId, id, at) => people.revokeSession(ctx, accountId, id, at),
    revokeAllSessions: (accountId, at) => people.revokeAllSessions(ctx, accountId, at),
    createPasswordReset: (reset) => people.createPasswordReset(ctx, reset),
    consumePasswordReset: (tokenHash, at) => people.consumePasswordReset(ctx, tokenHash, at),
    setAccountEmail: (accountId, email) => people.setAccountEmail(ctx, accountId, email),
    findAccountIdBySsoIdentity: (issuer, subject) => people.findAccountIdBySsoIdentity(ctx, issuer, subject),
    linkSsoIdentity: (issuer, subject, accountId, at) => people.linkSsoIdentity(ctx, issuer, subject, accountId, at),
    createSsoLogin: (login) => people.createSsoLogin(ctx, login),
    takeSsoLogin: (stateHash, now) => people.takeSsoLogin(ctx, stateHash, now),
    insertGoldenSet: (set) => evaluations.insertGoldenSet(ctx, set),
    getGoldenSet: (id, version) => evaluations.getGoldenSet(ctx, id, version),
    listGoldenSets: (collectionId) => evaluations.listGoldenSets(ctx, collectionId),
    deleteGoldenSet: (id) => evaluations.deleteGoldenSet(ctx, id),
    insertEvaluationRun: (run) => evaluations.insertEvaluationRun(ctx, run),
    getEvaluationRun: (id) => evaluations.getEvaluationRun(ctx, id),
    listEvaluationRuns: (collectionId, limit) => evaluations.listEvaluationRuns(ctx, collectionId, limit),
    getEvaluationGuard: (collectionId) => evaluations.getEvaluationGuard(ctx, collectionId),
    putEvaluationGuard: (guard) => evaluations.putEvaluationGuard(ctx, guard),
    deleteEvaluationGuard: (collectionId) => evaluations.deleteEvaluationGuard(ctx, collectionId),
  };
}
