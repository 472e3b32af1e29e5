/** Rows (id, text) loaded into one LanceDB table 1,000 at a time, then its FTS index; returns seconds. */
export declare function bareLanceLoad(texts: { id: string; text: string }[]): Promise<number>;
