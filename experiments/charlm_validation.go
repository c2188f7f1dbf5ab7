package experiments

// LMValidationWindows is the number of held-out windows a sweep's charlm
// runs evaluate at every record (Run.ValidationWindows 0), spread evenly
// over the held-out split: 32 windows, 8,192 of the shipped text's
// 111,540 held-out characters at the figures' shape (batch 16 of 16
// characters). The whole split costs 435 forward passes a record there,
// which a figure's tens of records per run cannot afford; the sample's
// standard error as an estimate of the whole split's loss, measured on
// trained models, is in docs/charlm.md ("Validation: the whole split and
// the figures' sample"). Every run of a figure reads the same windows,
// so differences between its runs are not affected by which windows
// they are. pipelab train reads the whole split.
const LMValidationWindows = 32
