// The teams this instance holds live state for, each with its own queue (see LiveTeam). A team is made on
// its first use and forgotten when it is dropped; a task that waited in the queue of a forgotten team can
// tell by asking holds().

import { LiveTeam } from "./team.js";

export class TeamRegistry {
  readonly #teams = new Map<string, LiveTeam>();

  get(teamId: string): LiveTeam | undefined {
    return this.#teams.get(teamId);
  }

  /** The team's live state, made (cold) on first use. */
  open(teamId: string): LiveTeam {
    let team = this.#teams.get(teamId);
    if (!team) {
      team = new LiveTeam();
      this.#teams.set(teamId, team);
    }
    return team;
  }

  /** Whether `team` is still the registered one: false once its team was dropped (and maybe made again). */
  holds(teamId: string, team: LiveTeam): boolean {
    return this.#teams.get(teamId) === team;
  }

  /** Forgets the team; the caller discards its indexes. Returns what was registered, if anything. */
  forget(teamId: string): LiveTeam | undefined {
    const team = this.#teams.get(teamId);
    this.#teams.delete(teamId);
    return team;
  }

  teamIds(): string[] {
    return [...this.#teams.keys()];
  }

  /** The teams whose indexes are built or being built. */
  loadedTeamIds(): string[] {
    return [...this.#teams.entries()].filter(([, team]) => team.state !== "cold").map(([teamId]) => teamId);
  }
}
