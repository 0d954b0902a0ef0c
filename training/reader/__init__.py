"""Training the cross-encoder reader: fitting (`fit`), nested cross-validation (`cv`) and the command's run
(`run`)."""
