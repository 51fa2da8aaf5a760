/**
 * Issue 24: the questions an agent asks about an estate it has never seen, each answered by at most two CLI
 * commands, on two real estates. The questions and their answers were written by reading the estates' source and
 * configuration (never Sextant's output); an agent with only the CLI needed 48 calls for these 16 (3.0 each) before
 * the commands below answered them. Each case is the command an agent types first for its question, and the answer
 * is asserted in the text it prints, as the agent reads it.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { join } from 'node:path';
import { indexInto, killAll, runCli, tempDir } from './helpers/e2e.js';
import { sharedDir } from './helpers/index.js';

const CORPORA = join(sharedDir(), 'corpora');
const stores: Record<string, string> = {};

before(async () => {
  const work = await tempDir('sextant-questions-');
  for (const estate of ['spring-petclinic-microservices', 'eazybank']) {
    stores[estate] = join(work, estate);
    await indexInto(join(CORPORA, estate), stores[estate]!);
  }
});
after(killAll);

interface Question {
  estate: 'spring-petclinic-microservices' | 'eazybank';
  question: string;
  /** The commands that answer it, as an agent types them (at most two). */
  commands: string[][];
  /** What the printed answer must say, each a fragment of one line. */
  says: (string | RegExp)[];
  /** Lines that must not be there (a wrong answer the question invites). */
  never?: RegExp[];
}

const QUESTIONS: Question[] = [
  {
    estate: 'spring-petclinic-microservices',
    question: 'Which methods in other services call POST /owners/{ownerId}/pets?',
    commands: [['callers', 'POST /owners/{ownerId}/pets']],
    says: [/genai-service -> customers-service POST \/owners\/\{ownerId\}\/pets {2}client, HTTP_CALLS {2}in AIDataProvider#addPetToOwner\(int,PetRequest\)/],
  },
  {
    estate: 'spring-petclinic-microservices',
    question: 'Which methods in other services call vets-service GET /vets?',
    commands: [['callers', 'GET /vets']],
    // The caller's qualified name is long (an event parameter): it is listed all the same.
    says: ['in VectorStoreController#loadVetDataToVectorStoreOnStartup(ApplicationStartedEvent)'],
  },
  {
    estate: 'spring-petclinic-microservices',
    question: 'Which methods call PetRepository, inherited save/findById included?',
    commands: [['callers', 'PetRepository']],
    says: ['PetResource#findPetById(int)  method, CALLS', 'PetResource#getPetTypes()  method, CALLS', 'PetResource#save(Pet,PetRequest)  method, CALLS'],
  },
  {
    estate: 'spring-petclinic-microservices',
    question: 'If VisitResource changes, what in other services is affected: callers of its routes, their callers up to a handler, gateway routes?',
    commands: [['impact', 'VisitResource']],
    says: [
      /method +VisitsServiceClient#getVisitsForPets\(List\) +← DECLARES_CLIENT/,
      /method +ApiGatewayController#getOwnerDetails\(int\) +← CALLS VisitsServiceClient#getVisitsForPets\(List\)/,
      /route +api-gateway GET \/api\/gateway\/owners\/\{ownerId\} +handled by ApiGatewayController#getOwnerDetails\(int\)/,
      // The gateway route forwards to each of the three routes, and says so.
      /route +api-gateway ANY \/api\/visit\/\*\* +→ lb:\/\/visits-service \(StripPrefix=2\) +← FORWARDS (visits-service [A-Z]+ \/\S+(, )?){3} /,
    ],
  },
  {
    estate: 'spring-petclinic-microservices',
    question: 'Which services does genai-service call, and from which classes?',
    commands: [['callees', 'genai-service']],
    says: [
      /genai-service -> customers-service GET \/owners {2}in AIDataProvider#getAllOwners\(\) {2}HTTP_CALLS → customers-service GET \/owners {2}handled by OwnerResource#findAll\(\)/,
      'in AIDataProvider#addOwnerToPetclinic(OwnerRequest)',
      'in AIDataProvider#addPetToOwner(int,PetRequest)',
      /in VectorStoreController#loadVetDataToVectorStoreOnStartup\(ApplicationStartedEvent\) {2}HTTP_CALLS → vets-service GET \/vets/,
    ],
    never: [/ASYNC_CALLS/],
  },
  {
    estate: 'spring-petclinic-microservices',
    question: 'Where does GET /api/customer/owners/7/pets/3 on the api-gateway go?',
    // The gateway's StripPrefix=2 leaves /owners/7/pets/3, which Spring's `*` in owners/*/pets/{petId} accepts.
    commands: [['resolve', 'GET /api/customer/owners/7/pets/3']],
    says: [/route +api-gateway ANY \/api\/customer\/\*\*/, /^ {2}forwards to route +customers-service GET \/owners\/\*\/pets\/\{petId\} +handled by PetResource#findPet\(int\) +\[confidence 0\.9\]/],
  },
  {
    estate: 'spring-petclinic-microservices',
    question: 'Which HTTP routes does customers-service declare in its controllers, with their handlers?',
    commands: [['routes', 'customers-service']],
    says: [
      /GET \/owners +OwnerResource#findAll\(\)/,
      /GET \/owners\/\{ownerId\} +OwnerResource#findOwner\(int\)/,
      /POST \/owners +OwnerResource#createOwner\(OwnerRequest\)/,
      /PUT \/owners\/\{ownerId\} +OwnerResource#updateOwner\(int,OwnerRequest\)/,
      /GET \/petTypes +PetResource#getPetTypes\(\)/,
      /POST \/owners\/\{ownerId\}\/pets +PetResource#processCreationForm\(PetRequest,int\)/,
      /PUT \/owners\/\*\/pets\/\{petId\} +PetResource#processUpdateForm\(PetRequest\)/,
      /GET \/owners\/\*\/pets\/\{petId\} +PetResource#findPet\(int\)/,
      // Routes Spring Boot's actuator adds are one line after the controllers'.
      /^ {2}and 3 actuator routes {2}spring-petclinic-customers-service\/pom\.xml:\d+: GET \/actuator, GET \/actuator\/health, GET \/actuator\/health\/\{\*path\}$/,
    ],
  },
  {
    estate: 'spring-petclinic-microservices',
    question: 'Which route does VisitsServiceClient#getVisitsForPets call, in which service, handled by what?',
    commands: [['callees', 'VisitsServiceClient#getVisitsForPets']],
    says: [/visits-service GET \/pets\/visits {2}route, HTTP_CALLS {2}handled by VisitResource#read\(List\)/],
  },
  {
    estate: 'spring-petclinic-microservices',
    question: '(not a question of the set) Spring path wildcards: a concrete path matches owners/*/pets/{petId}, and a concrete URL of no gateway route matches nothing',
    commands: [['resolve', 'GET /owners/7/pets/3']],
    says: [/^status: one$/, /route +customers-service GET \/owners\/\*\/pets\/\{petId\}/],
  },
  {
    estate: 'eazybank',
    question: 'Which service consumes what AccountsServiceImpl#sendCommunication sends, through which functions?',
    commands: [['callees', 'AccountsServiceImpl#sendCommunication']],
    says: [/message kafka send-communication {2}route, ASYNC_CALLS {2}handled by MessageFunctions#email\(\), then sms \(the composition email\|sms\)/],
  },
  {
    estate: 'eazybank',
    question: 'Which service consumes the message service\'s result, through which function, calling which service method?',
    commands: [
      ['callees', 'message'],
      ['callees', 'AccountsFunctions'],
    ],
    says: [
      /in MessageFunctions#sms\(\) {2}ASYNC_CALLS → accounts kafka communication-sent {2}handled by AccountsFunctions#updateCommunication\(IAccountsService\)/,
      /IAccountsService#updateCommunicationStatus\(Long\) {2}method, CALLS .*implemented by AccountsServiceImpl#updateCommunicationStatus\(Long\)/,
    ],
  },
  {
    estate: 'eazybank',
    question: 'Which route does CardsFeignClient#fetchCardDetails call, in which service, handled by what?',
    commands: [['callees', 'CardsFeignClient#fetchCardDetails']],
    says: [/cards GET \/api\/fetch {2}route, HTTP_CALLS {2}handled by CardsController#fetchCardDetails\(String,String\)/],
  },
  {
    estate: 'eazybank',
    question: 'Which methods in other services call loans GET /api/fetch, through which client method?',
    commands: [
      ['callers', 'loans GET /api/fetch'],
      ['callers', 'LoansFeignClient#fetchLoanDetails'],
    ],
    says: [/accounts -> loans GET \/api\/fetch {2}client, HTTP_CALLS {2}in LoansFeignClient#fetchLoanDetails\(String,String\)/, /CustomersServiceImpl#fetchCustomerDetails\(String,String\) {2}method, CALLS/],
  },
  {
    estate: 'eazybank',
    question: 'Which methods call AccountsRepository, inherited JPA methods included?',
    commands: [['callers', 'AccountsRepository']],
    says: [
      'AccountsServiceImpl#createAccount(CustomerDto)  method, CALLS',
      'AccountsServiceImpl#fetchAccount(String)  method, CALLS',
      'AccountsServiceImpl#updateAccount(CustomerDto)  method, CALLS',
      'AccountsServiceImpl#deleteAccount(String)  method, CALLS',
      'AccountsServiceImpl#updateCommunicationStatus(Long)  method, CALLS',
      'CustomersServiceImpl#fetchCustomerDetails(String,String)  method, CALLS',
    ],
  },
  {
    estate: 'eazybank',
    question: 'Which services does accounts call, over HTTP or messaging, through which clients?',
    commands: [['callees', 'accounts']],
    says: [
      /accounts -> cards GET \/api\/fetch {2}in CardsFeignClient#fetchCardDetails\(String,String\) {2}HTTP_CALLS → cards GET \/api\/fetch/,
      /accounts -> loans GET \/api\/fetch {2}in LoansFeignClient#fetchLoanDetails\(String,String\) {2}HTTP_CALLS → loans GET \/api\/fetch/,
      /accounts -> kafka send-communication {2}in AccountsServiceImpl#sendCommunication\(Accounts,Customer\) {2}ASYNC_CALLS → message kafka send-communication/,
    ],
  },
  {
    estate: 'eazybank',
    question: 'Where does GET /eazybank/accounts/api/fetchCustomerDetails on the gateway go?',
    commands: [['resolve', 'GET /eazybank/accounts/api/fetchCustomerDetails']],
    says: [/route +gatewayserver ANY \/eazybank\/accounts\/\*\*/, /^ {2}forwards to route +accounts GET \/api\/fetchCustomerDetails +handled by CustomerController#fetchCustomerDetails\(String,String\)/],
    // The gateway rewrites /eazybank/accounts/ to /: no other accounts route takes that path.
    never: [/forwards to .*(cards|loans)/],
  },
  {
    estate: 'eazybank',
    question: 'If CardsController changes, which client methods, callers up to a handler and gateway routes are affected?',
    commands: [['impact', 'CardsController']],
    says: [
      /method +CardsFeignClient#fetchCardDetails\(String,String\) +← DECLARES_CLIENT/,
      /method +CustomersServiceImpl#fetchCustomerDetails\(String,String\) +← CALLS CardsFeignClient#fetchCardDetails/,
      // The controller calls the interface; the implementation is what runs.
      /method +CustomerController#fetchCustomerDetails\(String,String\) +← CALLS ICustomersService#fetchCustomerDetails\(String,String\) \(runs CustomersServiceImpl#fetchCustomerDetails\(String,String\)\)/,
      /route +gatewayserver ANY \/eazybank\/cards\/\*\* +→ http:\/\/cards:9000/,
    ],
  },
];

describe('the questions of an agent new to an estate, each in at most two commands (issue 24)', () => {
  for (const q of QUESTIONS) {
    it(`${q.estate}: ${q.question}`, async () => {
      assert.ok(q.commands.length <= 2, 'at most two commands');
      let text = '';
      for (const command of q.commands) {
        const r = await runCli([...command, '--store', stores[q.estate]!]);
        assert.equal(r.code, 0, `${command.join(' ')}: ${r.stdout}${r.stderr}`);
        text += `${r.stdout}\n`;
      }
      const lines = text.split('\n');
      for (const fragment of q.says) {
        const found = lines.some((l) => (typeof fragment === 'string' ? l.includes(fragment) : fragment.test(l)));
        assert.ok(found, `no line says ${String(fragment)} in:\n${text}`);
      }
      for (const wrong of q.never ?? []) assert.ok(!lines.some((l) => wrong.test(l)), `a line says ${String(wrong)}:\n${text}`);
    });
  }
});
