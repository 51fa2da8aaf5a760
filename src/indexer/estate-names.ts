/** The derived source holding what no one repository of the estate holds (see estate.ts): `@` keeps it apart from every configured or published name. */
export const ESTATE_SOURCE = '@estate';
/** What a repository's source keeps so that later publications of the others can rebuild it: its files, gzipped. */
export const REPOSITORY_ARTIFACT = 'repository.json.gz.b64';
