// The records of a what-if file, types only (the webviews import them too): generated from schemas/whatif.schema.json,
// named here by part.
import type { WhatIfFile } from '../../runs/shared/generated/whatif';

export type { WhatIfFile };
export type WhatIfResultRecord = WhatIfFile['results'][number];
