import { Link, useNavigate, useParams } from '@tanstack/react-router';
import { type KeyboardEvent, type PointerEvent, useCallback, useEffect, useMemo, useRef, useState, type WheelEvent } from 'react';
import { readSse } from '../api.ts';
import { ErrorLine } from './common.tsx';

/** A claim on the map (GET /v1/collections/{id}/claims/map, its `done` event). */
export interface MapClaim {
  id: string;
  text: string;
  sourceText: string | null;
  documentId: string;
  documentName: string;
  sectionId: string;
  sectionTitle: string;
  importance: number;
  x: number;
  y: number;
}

type ColourBy = 'document' | 'importance';
interface View {
  scale: number;
  tx: number;
  ty: number;
}

const WIDTH = 960;
const HEIGHT = 560;
const PALETTE = ['#1d4ed8', '#b91c1c', '#047857', '#a16207', '#7c3aed', '#be185d', '#0e7490', '#4d7c0f', '#c2410c', '#334155', '#9333ea', '#0f766e'];
const IMPORTANCE = ['#cbd5e1', '#93c5fd', '#3b82f6', '#1d4ed8', '#1e3a8a'];

/** Points in canvas space at scale 1: the data's bounding box fitted into the canvas with a margin, centred. */
function fit(claims: MapClaim[]): Float32Array {
  let [minX, minY, maxX, maxY] = [Number.POSITIVE_INFINITY, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, Number.NEGATIVE_INFINITY];
  for (const c of claims) {
    minX = Math.min(minX, c.x);
    maxX = Math.max(maxX, c.x);
    minY = Math.min(minY, c.y);
    maxY = Math.max(maxY, c.y);
  }
  const scale = Math.min((WIDTH - 40) / (maxX - minX || 1), (HEIGHT - 40) / (maxY - minY || 1));
  // Centred: a map whose claims share one position (or one line) sits in the middle, not in a corner.
  const left = (WIDTH - (maxX - minX) * scale) / 2;
  const top = (HEIGHT - (maxY - minY) * scale) / 2;
  const points = new Float32Array(claims.length * 2);
  claims.forEach((c, i) => {
    points[i * 2] = left + (c.x - minX) * scale;
    points[i * 2 + 1] = top + (c.y - minY) * scale;
  });
  return points;
}

/** Each claim's colour index, by document (a stable palette slot per document) or by importance (1–5). */
function colours(claims: MapClaim[], by: ColourBy): Uint8Array {
  const slots = new Map<string, number>();
  return Uint8Array.from(claims, (c) => {
    if (by === 'importance') return Math.max(0, Math.min(4, Math.round(c.importance) - 1));
    if (!slots.has(c.documentId)) slots.set(c.documentId, slots.size % PALETTE.length);
    return slots.get(c.documentId) ?? 0;
  });
}

/** Draw every point, one fill colour at a time (a few colour switches instead of one per point). */
function draw(canvas: HTMLCanvasElement, points: Float32Array, colour: Uint8Array, palette: string[], view: View, selected: number | null): void {
  const ctx = canvas.getContext('2d');
  if (!ctx) return;
  const started = performance.now();
  ctx.clearRect(0, 0, WIDTH, HEIGHT);
  // Big dots for a small map, fine ones for a dense map; both grow as the map is zoomed in.
  const size = Math.min(14, (colour.length < 2000 ? 7 : 2.5) * Math.sqrt(view.scale));
  for (let slot = 0; slot < palette.length; slot++) {
    ctx.fillStyle = palette[slot] ?? '#000';
    ctx.beginPath();
    for (let i = 0; i < colour.length; i++) {
      if (colour[i] !== slot) continue;
      const x = (points[i * 2] ?? 0) * view.scale + view.tx;
      const y = (points[i * 2 + 1] ?? 0) * view.scale + view.ty;
      if (x < -size || y < -size || x > WIDTH + size || y > HEIGHT + size) continue;
      ctx.rect(x - size / 2, y - size / 2, size, size);
    }
    ctx.fill();
  }
  if (selected !== null) {
    ctx.strokeStyle = '#f59e0b';
    ctx.lineWidth = 3;
    ctx.strokeRect((points[selected * 2] ?? 0) * view.scale + view.tx - 6, (points[selected * 2 + 1] ?? 0) * view.scale + view.ty - 6, 12, 12);
  }
  performance.measure('claim-map-draw', { start: started, end: performance.now() });
}

/** The claim nearest to a canvas position, within 8 pixels (a linear scan: ~1 ms at 20,000 claims). */
function nearest(points: Float32Array, view: View, px: number, py: number): number | null {
  let best: number | null = null;
  let bestDistance = 64;
  for (let i = 0; i < points.length / 2; i++) {
    const dx = (points[i * 2] ?? 0) * view.scale + view.tx - px;
    const dy = (points[i * 2 + 1] ?? 0) * view.scale + view.ty - py;
    const distance = dx * dx + dy * dy;
    if (distance < bestDistance) {
      bestDistance = distance;
      best = i;
    }
  }
  return best;
}

/** Load the map from its event stream: progress, then every claim. */
function useClaimMap(collectionId: string) {
  const [state, setState] = useState<{ claims: MapClaim[] | null; pct: number; error: Error | null }>({ claims: null, pct: 0, error: null });
  useEffect(() => {
    const controller = new AbortController();
    setState({ claims: null, pct: 0, error: null });
    readSse(`/v1/collections/${encodeURIComponent(collectionId)}/claims/map`, { signal: controller.signal }, (data) => {
      const ev = data as { type: string; pct?: number; claims?: MapClaim[]; message?: string };
      if (ev.type === 'progress') setState((s) => ({ ...s, pct: ev.pct ?? s.pct }));
      if (ev.type === 'done') setState({ claims: ev.claims ?? [], pct: 100, error: null });
      if (ev.type === 'error') setState((s) => ({ ...s, error: new Error(ev.message ?? 'The claim map failed') }));
    }).catch((err: Error) => !controller.signal.aborted && setState((s) => ({ ...s, error: err })));
    return () => controller.abort();
  }, [collectionId]);
  return state;
}

/**
 * The claim map (issue 37): every claim of the collection as a point on a canvas, coloured by document or by
 * importance; wheel or +/− to zoom, drag or arrows to pan, hover (or n/p from the keyboard) for the claim, click
 * (or Enter) to open its section.
 */
export function ClaimMapPage() {
  const { collectionId } = useParams({ from: '/collections/$collectionId/claims' });
  const { claims, pct, error } = useClaimMap(collectionId);
  const [by, setBy] = useState<ColourBy>('document');
  return (
    <>
      <p>
        <Link to="/collections/$collectionId" params={{ collectionId }}>
          ← Documents
        </Link>
      </p>
      <h1>Claim map</h1>
      <ErrorLine error={error} />
      {!claims && !error && <p role="status">Building the map… {pct}%</p>}
      {claims && (
        <>
          <div className="inline">
            <label>
              Colour by
              <select value={by} onChange={(e) => setBy(e.target.value as ColourBy)}>
                <option value="document">document</option>
                <option value="importance">importance</option>
              </select>
            </label>
            <p role="status">{claims.length} claims</p>
          </div>
          <ClaimCanvas claims={claims} by={by} />
        </>
      )}
    </>
  );
}

/** The map's keys: + and − zoom, arrows pan, n and p step through the claims, Enter opens the one picked. */
function keyHandler(act: { zoom(factor: number): void; pan(dx: number, dy: number): void; step(by: number): void; open(): void }) {
  const keys: Record<string, () => void> = {
    '+': () => act.zoom(1.5),
    '=': () => act.zoom(1.5),
    '-': () => act.zoom(1 / 1.5),
    arrowleft: () => act.pan(60, 0),
    arrowright: () => act.pan(-60, 0),
    arrowup: () => act.pan(0, 60),
    arrowdown: () => act.pan(0, -60),
    n: () => act.step(1),
    p: () => act.step(-1),
    enter: () => act.open(),
  };
  return (e: KeyboardEvent<HTMLCanvasElement>) => {
    const action = keys[e.key.length > 1 ? e.key.toLowerCase() : e.key];
    if (action) {
      e.preventDefault();
      action();
    }
  };
}

function ClaimCanvas({ claims, by }: { claims: MapClaim[]; by: ColourBy }) {
  const navigate = useNavigate();
  const canvas = useRef<HTMLCanvasElement>(null);
  const drag = useRef<{ x: number; y: number } | null>(null);
  const points = useMemo(() => fit(claims), [claims]);
  const colour = useMemo(() => colours(claims, by), [claims, by]);
  const [view, setView] = useState<View>({ scale: 1, tx: 0, ty: 0 });
  const [selected, setSelected] = useState<number | null>(null);
  useEffect(() => {
    if (canvas.current) draw(canvas.current, points, colour, by === 'document' ? PALETTE : IMPORTANCE, view, selected);
  }, [points, colour, by, view, selected]);
  const zoom = useCallback((factor: number, cx = WIDTH / 2, cy = HEIGHT / 2) => {
    setView((v) => {
      const scale = Math.max(0.5, Math.min(200, v.scale * factor));
      const k = scale / v.scale;
      return { scale, tx: cx - (cx - v.tx) * k, ty: cy - (cy - v.ty) * k };
    });
  }, []);
  const open = (index: number | null) => {
    const claim = index === null ? undefined : claims[index];
    if (claim)
      void navigate({
        to: '/documents/$documentId',
        params: { documentId: claim.documentId },
        search: { section: claim.sectionId, ...(claim.sourceText ? { highlight: claim.sourceText } : {}) },
      });
  };
  const at = (e: PointerEvent<HTMLCanvasElement> | WheelEvent<HTMLCanvasElement>) => {
    const box = e.currentTarget.getBoundingClientRect();
    return { x: ((e.clientX - box.left) * WIDTH) / box.width, y: ((e.clientY - box.top) * HEIGHT) / box.height };
  };
  const onMove = (e: PointerEvent<HTMLCanvasElement>) => {
    const p = at(e);
    if (drag.current) {
      const { x, y } = drag.current;
      drag.current = p;
      setView((v) => ({ ...v, tx: v.tx + p.x - x, ty: v.ty + p.y - y }));
    } else setSelected(nearest(points, view, p.x, p.y));
  };
  const pan = (dx: number, dy: number) => setView((v) => ({ ...v, tx: v.tx + dx, ty: v.ty + dy }));
  const step = (by: number) => setSelected((s) => (s === null ? (by > 0 ? 0 : claims.length - 1) : (s + by + claims.length) % claims.length));
  const onKey = keyHandler({ zoom, pan, step, open: () => open(selected) });
  return (
    <div className="claim-map">
      <canvas
        ref={canvas}
        width={WIDTH}
        height={HEIGHT}
        tabIndex={0}
        aria-label={`Claim map of ${claims.length} claims. Keys: n and p pick the next or previous claim, Enter opens it, arrows pan, plus and minus zoom.`}
        onWheel={(e) => {
          const p = at(e);
          zoom(e.deltaY < 0 ? 1.25 : 0.8, p.x, p.y);
        }}
        onPointerDown={(e) => {
          drag.current = at(e);
          e.currentTarget.setPointerCapture(e.pointerId);
        }}
        onPointerUp={(e) => {
          const start = drag.current;
          drag.current = null;
          const p = at(e);
          if (start && Math.abs(start.x - p.x) < 3 && Math.abs(start.y - p.y) < 3) open(nearest(points, view, p.x, p.y));
        }}
        onPointerMove={onMove}
        onKeyDown={onKey}
      />
      <ClaimCard claim={selected === null ? null : (claims[selected] ?? null)} />
    </div>
  );
}

function ClaimCard({ claim }: { claim: MapClaim | null }) {
  return (
    <aside aria-label="Claim under the pointer" aria-live="polite" className="claim-card">
      {claim ? (
        <>
          <p className="claim">{claim.text}</p>
          <p>
            {claim.documentName} · {claim.sectionTitle} · importance {claim.importance}
          </p>
          {claim.sourceText && <blockquote>{claim.sourceText}</blockquote>}
        </>
      ) : (
        <p className="muted">Point at a claim (or press n) to read it; click it (or press Enter) to open its section.</p>
      )}
    </aside>
  );
}
