// Moved to src/common/shared/inertText.ts (shared by every view); re-exported for imports not yet updated.
export * from '../../common/shared/inertText';
