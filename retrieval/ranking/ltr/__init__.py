"""Learning to rank over both graphs: candidates from every channel, features per (question,
candidate), a LightGBM LambdaRank model, and a retriever that uses it."""
