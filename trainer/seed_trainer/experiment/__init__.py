"""What an experiment file is: the config model, its cross-field rules, the checks the editor shares (text, YAML, schema)
and the preflight of a stage's inputs. Below compute and the stages; imports only algo, models and the environment catalog."""
