// The run-directory contract, vscode-free (docs/run-format.md).
export * from './types';
export * from './errors';
export * from './runFiles';
export * from './jsonl';
export * from './schemas';
export * from './tokenArrays';
export * from './runReader';
export * from './checkRun';
export * from './runConsistency';
export * from './runOwner';
export * from './control';
export * from './skillReview';
export { writeFileAtomic } from './atomicWrite';
