"""The trick-taking core every game shares: cards, actions, tricks, dealing, choices, errors,
fairness, options, hand records, the shared table state and the common view."""
