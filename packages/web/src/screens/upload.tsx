import { useQueryClient } from '@tanstack/react-query';
import { type DragEvent, useRef, useState } from 'react';
import { uploadFile } from '../api.ts';
import { documentsKey } from '../live-status.ts';

/** One file of an upload: its name (with its folder path), progress, and how it ended. */
interface UploadItem {
  key: string;
  name: string;
  progress: number;
  state: 'queued' | 'uploading' | 'done' | 'failed';
  error?: string;
}

/** Files sent at once: enough to fill the pipe, few enough for progress to mean something. */
const PARALLEL_UPLOADS = 3;

/** The files of a dropped folder, with their paths inside it (FileSystem entries API). */
async function filesOfEntry(entry: FileSystemEntry, prefix = ''): Promise<{ file: File; name: string }[]> {
  if (entry.isFile) {
    const file = await new Promise<File>((resolve, reject) => (entry as FileSystemFileEntry).file(resolve, reject));
    return [{ file, name: prefix + file.name }];
  }
  const reader = (entry as FileSystemDirectoryEntry).createReader();
  const children: FileSystemEntry[] = [];
  for (;;) {
    const batch = await new Promise<FileSystemEntry[]>((resolve, reject) => reader.readEntries(resolve, reject));
    if (batch.length === 0) break;
    children.push(...batch);
  }
  const nested = await Promise.all(children.map((c) => filesOfEntry(c, `${prefix}${entry.name}/`)));
  return nested.flat();
}

async function droppedFiles(e: DragEvent): Promise<{ file: File; name: string }[]> {
  const entries = [...e.dataTransfer.items].map((i) => i.webkitGetAsEntry?.()).filter((x): x is FileSystemEntry => Boolean(x));
  if (entries.length) return (await Promise.all(entries.map((entry) => filesOfEntry(entry)))).flat();
  return [...e.dataTransfer.files].map((file) => ({ file, name: file.name }));
}

/** Drop files or folders (or choose them): each is uploaded with its own progress bar and Idempotency-Key. */
export function UploadZone({ collectionId }: { collectionId: string }) {
  const queries = useQueryClient();
  const [items, setItems] = useState<UploadItem[]>([]);
  const [over, setOver] = useState(false);
  const folderInput = useRef<HTMLInputElement>(null);
  const update = (key: string, change: Partial<UploadItem>) => setItems((all) => all.map((i) => (i.key === key ? { ...i, ...change } : i)));

  const start = async (files: { file: File; name: string }[]) => {
    const queued = files.map(({ file, name }) => ({ file, item: { key: crypto.randomUUID(), name, progress: 0, state: 'queued' as const } }));
    setItems((all) => [...queued.map((q) => q.item), ...all]);
    const next = async (): Promise<void> => {
      const job = queued.shift();
      if (!job) return;
      update(job.item.key, { state: 'uploading' });
      try {
        await uploadFile(collectionId, job.file, job.item.name, (progress) => update(job.item.key, { progress }));
        update(job.item.key, { state: 'done', progress: 1 });
      } catch (err) {
        update(job.item.key, { state: 'failed', error: (err as Error).message });
      }
      await queries.invalidateQueries({ queryKey: documentsKey(collectionId) });
      return next();
    };
    await Promise.all(Array.from({ length: PARALLEL_UPLOADS }, next));
    await queries.invalidateQueries({ queryKey: ['stats', collectionId] });
  };

  const onDrop = async (e: DragEvent<HTMLElement>) => {
    e.preventDefault();
    setOver(false);
    await start(await droppedFiles(e));
  };
  const chosen = (list: FileList | null) => start([...(list ?? [])].map((file) => ({ file, name: file.webkitRelativePath || file.name })));

  return (
    <section
      aria-labelledby="upload-title"
      className={`upload ${over ? 'over' : ''}`}
      onDragOver={(e) => {
        e.preventDefault();
        setOver(true);
      }}
      onDragLeave={() => setOver(false)}
      onDrop={onDrop}
    >
      <h2 id="upload-title">Upload</h2>
      <p>Drop files or folders here, or choose them:</p>
      <label className="button">
        Choose files
        <input type="file" multiple className="visually-hidden" onChange={(e) => void chosen(e.target.files)} />
      </label>
      <label className="button">
        Choose a folder
        <input
          ref={(el) => {
            folderInput.current = el;
            el?.setAttribute('webkitdirectory', '');
          }}
          type="file"
          multiple
          className="visually-hidden"
          onChange={(e) => void chosen(e.target.files)}
        />
      </label>
      {items.length > 0 && (
        <ul className="uploads" aria-label="Uploads">
          {items.map((i) => (
            <li key={i.key} className={i.state}>
              <span>{i.name}</span>
              <progress value={i.progress} max={1} aria-label={`${i.name} upload progress`} />
              <span>{i.state === 'failed' ? `failed: ${i.error}` : i.state}</span>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
