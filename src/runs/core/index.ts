// The run-directory contract, vscode-free (docs/run-format.md).
export * from '../shared/types';
export * from './errors';
export * from './runFiles';
export * from './jsonl';
export * from './schemas';
export * from '../shared/tokenArrays';
export * from '../shared/metricQuantiles';
export * from './runReader';
export * from './checkRun';
export * from './runConsistency';
export * from './runOwner';
export * from './control';
export * from './tags';
export * from './skillReview';
