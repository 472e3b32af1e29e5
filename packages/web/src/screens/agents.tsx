import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { api, type Schemas, unwrap } from '../api.ts';
import { RunPanel, RunsPanel } from './agent-run.tsx';
import { ConfirmDialog, ErrorLine, useOrgRole } from './common.tsx';

type Agent = Schemas['Agent'];
type Toolset = Agent['toolset'];
const TOOLS: (keyof Toolset)[] = ['search_collection', 'scan_sections', 'list_documents', 'get_document', 'get_section_chunks'];

/** The output schema as typed: null when empty, the parsed object, or why it is not a JSON Schema object. */
export function parseOutputSchema(text: string): { value: Record<string, unknown> | null; error: string | null } {
  if (!text.trim()) return { value: null, error: null };
  try {
    const value = JSON.parse(text) as unknown;
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return { value: null, error: 'The output schema must be a JSON object' };
    if (!('type' in value)) return { value: null, error: 'The output schema needs a "type" (for example "object")' };
    return { value: value as Record<string, unknown>, error: null };
  } catch (err) {
    return { value: null, error: `Not valid JSON: ${(err as Error).message}` };
  }
}

/**
 * Hosted agents of the project (issue 37): list, create and edit (prompt, model, tools, collection allow-list,
 * output schema checked as you type), preview a draft (admins, as the API rules), invoke, and the runs with their
 * steps. Members see the agents, invoke them and read runs.
 */
export function AgentsPage() {
  const { isAdmin, orgId, projectId } = useOrgRole();
  const [selected, setSelected] = useState<string | null>(null);
  const agents = useQuery({
    queryKey: ['agents', projectId],
    queryFn: async () => unwrap(await api.GET('/v1/orgs/{orgId}/projects/{projectId}/agents', { params: { path: { orgId, projectId } } })),
  });
  const agent = agents.data?.agents.find((a) => a.slug === selected) ?? null;
  return (
    <>
      <h1>Hosted agents</h1>
      <ErrorLine error={agents.error} />
      <ul>
        {agents.data?.agents.map((a) => (
          <li key={a.id}>
            <button type="button" className="link" aria-expanded={selected === a.slug} onClick={() => setSelected(a.slug)}>
              {a.name} ({a.slug}, {a.model})
            </button>
          </li>
        ))}
      </ul>
      {isAdmin && (
        <button type="button" onClick={() => setSelected('')}>
          New agent
        </button>
      )}
      {selected === '' && isAdmin && <AgentEditor key="new" orgId={orgId} projectId={projectId} agent={null} onSaved={setSelected} />}
      {agent && (
        <section aria-label={`Agent ${agent.name}`} key={agent.id}>
          <h2>{agent.name}</h2>
          {isAdmin ? <AgentEditor orgId={orgId} projectId={projectId} agent={agent} onSaved={setSelected} /> : <pre>{agent.systemPrompt}</pre>}
          <RunPanel
            label="Invoke"
            url={`/v1/orgs/${encodeURIComponent(orgId)}/projects/${encodeURIComponent(projectId)}/agents/${encodeURIComponent(agent.slug)}/invoke`}
            body={(query) => ({ query })}
          />
          <RunsPanel orgId={orgId} projectId={projectId} agentSlug={agent.slug} />
        </section>
      )}
    </>
  );
}

function useCollections() {
  return useQuery({ queryKey: ['collections'], queryFn: async () => unwrap(await api.GET('/v1/collections')) });
}

/** The editor of one agent (or a new one), with the draft preview beside it. */
function AgentEditor({ orgId, projectId, agent, onSaved }: { orgId: string; projectId: string; agent: Agent | null; onSaved(slug: string | null): void }) {
  const queries = useQueryClient();
  const [schemaText, setSchemaText] = useState(agent?.outputSchema ? JSON.stringify(agent.outputSchema, null, 2) : '');
  const [prompt, setPrompt] = useState(agent?.systemPrompt ?? '');
  const [model, setModel] = useState(agent?.model ?? '');
  const [tools, setTools] = useState<Toolset>(
    agent?.toolset ?? { search_collection: true, scan_sections: true, list_documents: true, get_document: true, get_section_chunks: true },
  );
  const [allowed, setAllowed] = useState<string[] | null>(agent?.allowedCollectionIds ?? null);
  const [deleting, setDeleting] = useState(false);
  const schema = parseOutputSchema(schemaText);
  const path = { orgId, projectId };
  const done = (slug: string | null) => {
    void queries.invalidateQueries({ queryKey: ['agents', projectId] });
    onSaved(slug);
  };
  const save = useMutation({
    mutationFn: async (fields: { name: string; slug: string }) => {
      const body = { name: fields.name, systemPrompt: prompt, model, toolset: tools, allowedCollectionIds: allowed, outputSchema: schema.value };
      if (!agent) return unwrap(await api.POST('/v1/orgs/{orgId}/projects/{projectId}/agents', { params: { path }, body: { ...body, slug: fields.slug } }));
      return unwrap(await api.PATCH('/v1/orgs/{orgId}/projects/{projectId}/agents/{agentId}', { params: { path: { ...path, agentId: agent.id } }, body }));
    },
    onSuccess: (saved) => done(saved.slug),
  });
  const remove = useMutation({
    mutationFn: async (target: Agent) => {
      const res = await api.DELETE('/v1/orgs/{orgId}/projects/{projectId}/agents/{agentId}', { params: { path: { ...path, agentId: target.id } } });
      if (!res.response.ok) unwrap(res);
    },
    onSuccess: () => done(null),
  });
  const submit = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const f = new FormData(e.currentTarget);
    save.mutate({ name: String(f.get('name') ?? ''), slug: String(f.get('slug') ?? agent?.slug ?? '') });
  };
  const previewSlug = agent?.slug ?? 'draft';
  return (
    <div className="agent-editor">
      <form className="stack" onSubmit={submit} aria-label={agent ? `Edit ${agent.name}` : 'New agent'}>
        <label>
          Agent name
          <input name="name" defaultValue={agent?.name ?? ''} required maxLength={200} />
        </label>
        {!agent && (
          <label>
            Slug (in its URL)
            <input name="slug" required pattern="[a-z0-9][a-z0-9-]*" />
          </label>
        )}
        <label>
          Model
          <input value={model} onChange={(e) => setModel(e.target.value)} required />
        </label>
        <label>
          System prompt
          <textarea rows={4} value={prompt} onChange={(e) => setPrompt(e.target.value)} required />
        </label>
        <ToolsField tools={tools} onChange={setTools} />
        <CollectionsField allowed={allowed} onChange={setAllowed} />
        <SchemaField text={schemaText} onChange={setSchemaText} check={schema} />
        <div className="actions">
          <button type="submit" disabled={Boolean(schema.error) || save.isPending}>
            {agent ? 'Save agent' : 'Create agent'}
          </button>
          {agent && (
            <button type="button" className="danger" onClick={() => setDeleting(true)}>
              Delete agent
            </button>
          )}
        </div>
        <ErrorLine error={save.error ?? remove.error} />
      </form>
      <RunPanel
        label="Preview draft"
        url={`/v1/orgs/${encodeURIComponent(orgId)}/projects/${encodeURIComponent(projectId)}/agents/${encodeURIComponent(previewSlug)}/preview`}
        body={(query) => ({
          query,
          draft: { systemPrompt: prompt, model, toolset: tools, allowedCollectionIds: allowed, ...(schema.value ? { outputSchema: schema.value } : {}) },
        })}
      />
      {deleting && agent && (
        <ConfirmDialog title="Delete this agent?" confirmLabel="Delete agent" onCancel={() => setDeleting(false)} onConfirm={() => remove.mutate(agent)}>
          <p>
            {agent.name} ({agent.slug}) is deleted with its runs and their steps; programs invoking it get 404.
          </p>
        </ConfirmDialog>
      )}
    </div>
  );
}

/** The collections an agent may read: every collection of the sandbox (null), or the ones ticked. */
function CollectionsField({ allowed, onChange }: { allowed: string[] | null; onChange(next: string[] | null): void }) {
  const collections = useCollections();
  return (
    <fieldset>
      <legend>Collections it may read</legend>
      <label className="check">
        <input type="checkbox" checked={allowed === null} onChange={(e) => onChange(e.target.checked ? null : [])} /> every collection of the sandbox
      </label>
      {allowed !== null &&
        collections.data?.map((c) => (
          <label key={c.id} className="check">
            <input
              type="checkbox"
              checked={allowed.includes(c.id)}
              onChange={(e) => onChange(e.target.checked ? [...allowed, c.id] : allowed.filter((x) => x !== c.id))}
            />{' '}
            {c.name}
          </label>
        ))}
    </fieldset>
  );
}

/** The output schema, checked as it is typed (the message is announced politely). */
function SchemaField({ text, onChange, check }: { text: string; onChange(next: string): void; check: ReturnType<typeof parseOutputSchema> }) {
  return (
    <>
      <label>
        Output schema (JSON Schema, optional)
        <textarea rows={4} value={text} onChange={(e) => onChange(e.target.value)} aria-invalid={Boolean(check.error)} aria-describedby="schema-check" />
      </label>
      <p id="schema-check" className={check.error ? 'error' : 'muted'} aria-live="polite">
        {check.error ?? (check.value ? 'Valid output schema.' : 'No output schema: answers are text.')}
      </p>
    </>
  );
}

function ToolsField({ tools, onChange }: { tools: Toolset; onChange(next: Toolset): void }) {
  return (
    <fieldset>
      <legend>Tools</legend>
      {TOOLS.map((tool) => (
        <label key={tool} className="check">
          <input type="checkbox" checked={tools[tool]} onChange={(e) => onChange({ ...tools, [tool]: e.target.checked })} /> {tool}
        </label>
      ))}
    </fieldset>
  );
}
