"""The decision step's models: the governing-rule selector, its calibration and the verdict classifiers."""
