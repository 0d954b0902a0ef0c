"""A team's server: users and tokens (`users`), the record of every answer given (`answer_log`), replaying
a recorded answer (`replay`), and the code and model versions a record carries (`versions`)."""
