/** `https://github.com/org/team` written as other transports, cases and forms of its URL: one repository. */
export const TEAM_SPELLINGS = [
  "git@github.com:org/team.git",
  "ssh://git@github.com/org/team",
  "git+https://github.com/org/team",
  "http://github.com/org/team",
  "git://github.com/org/team",
  "https://github.com/ORG/team",
  "https://github.com/org//team",
  "https://www.github.com/org/team",
];
